package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

type deployed struct {
	arch   string
	remote string
	pushed int64
}

// deployAgent puts the agent for the board's arch on it: boards.toml's arch, else the one the board reports in
// the deploy check's own session (no session of its own for `uname -m`).
func deployAgent(ctx context.Context, opts RunOptions, b inventory.Board, t Transport) (deployed, error) {
	if opts.Agent == nil {
		return deployed{}, fmt.Errorf("deploy to %s: no agent builder configured", b.Name)
	}
	agentFor := func(ctx context.Context, arch string) (string, error) {
		local, err := opts.Agent(ctx, arch)
		if err != nil {
			return "", fmt.Errorf("agent for %s (%s): %w", b.Name, arch, err)
		}
		return local, nil
	}
	local := ""
	if b.Arch != "" {
		var err error
		if local, err = agentFor(ctx, b.Arch); err != nil {
			return deployed{}, err
		}
	}
	res, arch, err := deploy(ctx, t, local, agentFor, DeployOptions{Board: b.Name, Arch: b.Arch, Logf: opts.Logf})
	if err != nil {
		return deployed{}, err
	}
	if b.Arch != "" {
		arch = b.Arch
	}
	return deployed{arch: arch, remote: res.RemotePath, pushed: res.Pushed}, nil
}

// probe runs `agent probe` and returns the board's facts.
// modes are those the sweep will measure, so the probe tests the engines and providers they name.
func probe(ctx context.Context, t Transport, remote string, b inventory.Board, modes []string) (*protocol.Facts, error) {
	var stdout bytes.Buffer
	stderr := &tailWriter{Max: 4096}
	err := t.Run(ctx, Command{Args: append([]string{remote, "probe"}, probeArgs(b, modes)...), Env: b.Env, Stdout: &stdout, Stderr: stderr})
	if err != nil {
		return nil, withStderr(err, stderr.String())
	}
	return readFacts(protocol.NewDecoder(&stdout))
}

// probeArgs are the probe's flags for a board and the modes to be measured: its openssl, and the engines and
// providers the modes name.
func probeArgs(b inventory.Board, modes []string) []string {
	var args []string
	if b.OpenSSL != "" {
		args = append(args, "--openssl", b.OpenSSL)
	}
	if engines := modeNames(modes, "engine:"); len(engines) > 0 {
		args = append(args, "--engines", strings.Join(engines, ","))
	}
	if providers := modeNames(modes, "provider:"); len(providers) > 0 {
		args = append(args, "--providers", strings.Join(providers, ","))
	}
	return args
}

// modeNames are the NAMEs of the modes "engine:NAME" (prefix "engine:") or "provider:NAME".
func modeNames(modes []string, prefix string) []string {
	var names []string
	for _, m := range modes {
		if name, ok := strings.CutPrefix(m, prefix); ok {
			names = append(names, name)
		}
	}
	return names
}

// boardPlan is the sweep for one board: the run's profile, with the board's own modes unless the command line
// named modes. Modes left empty by all three mean every mode the probe finds: boardRun.onFacts fills them from
// the facts.
func boardPlan(opts RunOptions, b inventory.Board) protocol.Plan {
	s := opts.Sweep
	modes := s.Modes
	if !opts.ModesSet && len(b.Modes) > 0 {
		modes = b.Modes
	}
	cpus := s.CPUs
	if !opts.CPUsSet && b.CPUs != "" {
		cpus = b.CPUs
	}
	return protocol.Plan{
		CPUs:           cpus,
		ClusterThreads: s.ClusterThreads && cpus != "",
		OpenSSL:        b.OpenSSL,
		Env:            b.Env,
		Algorithms:     s.Algorithms,
		Modes:          modes,
		Sizes:          s.Sizes,
		Seconds:        s.Seconds,
		Threads:        s.Threads,
		Repeats:        s.MaxRepeats(),
		// the agent matches every kernel line on the board, before its caps, with these after the defaults
		KernelPatterns: b.KernelPatterns,
		Power:          powerPlan(b, s.Seconds),
	}
}

// progressKey is one planned measurement slot: mode × algorithm × size × repeat.
type progressKey struct {
	mode, alg string
	size      int
	repeat    int
}

func plannedPoints(p protocol.Plan) int {
	n := 0
	for _, alg := range p.Algorithms {
		n += slotsPerAlgorithm(p, alg)
	}
	return n * len(p.Modes)
}

// slotsPerAlgorithm is how many points one mode measures of alg: one per block size and repeat, or one per
// repeat for a public-key algorithm, which has no block sizes.
func slotsPerAlgorithm(p protocol.Plan, alg string) int {
	if isAsymmetric(alg) {
		return max(p.Repeats, 1)
	}
	sizes := len(p.Sizes)
	if sizes == 0 {
		sizes = len(protocol.DefaultSizes)
	}
	return sizes * max(p.Repeats, 1)
}

func isAsymmetric(alg string) bool {
	_, asym, err := opensslspeed.Args(alg)
	return err == nil && asym
}

// consume reads the agent's lines until done, storing each as it arrives.
func consume(ctx context.Context, dec *protocol.Decoder, plan protocol.Plan, rec *recorder, onPoint func(progressKey), agentErrs *[]string) error {
	meter := startControllerPower(ctx, plan.Power)
	defer meter.close()
	for {
		m, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("agent stopped before the end of the sweep")
		}
		if errors.Is(err, protocol.ErrUnknownProtocol) {
			return err
		}
		if err != nil {
			// one bad line is reported, the rest of the stream is still good
			*agentErrs = append(*agentErrs, err.Error())
			if len(*agentErrs) > 100 {
				return fmt.Errorf("too many bad lines from the agent, last: %w", err)
			}
			continue
		}
		switch m.Type {
		case protocol.TypeBegin:
			rec.kernel.begin(*m.Begin)
			rec.tracePoints.begin(*m.Begin, time.Now())
			rec.event(Event{Stage: StageMeasure, Done: rec.done(), Mode: m.Begin.Mode, Algorithm: m.Begin.Algorithm, Size: m.Begin.BlockSize})
		case protocol.TypeKernel:
			rec.kernel.report(*m.Kernel)
		case protocol.TypePoint:
			rec.kernel.point(m.Point)
			if m.Point.RawID > 0 {
				m.Point.RawID += rec.rawBase
			}
			// numbers under a mode nobody asked for would be stored under an accelerator's name
			if _, ok := protocol.PlanMode(plan.Modes, m.Point.Mode); !ok {
				*agentErrs = append(*agentErrs, fmt.Sprintf("line %d: point for mode %q, which the plan does not have: refused", dec.Line(), m.Point.Mode))
				continue
			}
			rec.tracePoints.point(rec.trace, rec.board, *m.Point, time.Now())
			meter.point(m.Point)
			if err := rec.point(ctx, *m.Point, plan, onPoint); err != nil {
				return err
			}
		case protocol.TypeSkip:
			if _, ok := protocol.PlanMode(plan.Modes, m.Skip.Mode); m.Skip.Mode != "" && !ok {
				*agentErrs = append(*agentErrs, fmt.Sprintf("line %d: skip for mode %q, which the plan does not have: refused", dec.Line(), m.Skip.Mode))
				continue
			}
			if err := rec.skip(ctx, *m.Skip, plan); err != nil {
				return err
			}
		case protocol.TypeVerify:
			if _, ok := protocol.PlanMode(plan.Modes, m.Verify.Mode); !ok {
				*agentErrs = append(*agentErrs, fmt.Sprintf("line %d: verification for mode %q, which the plan does not have: refused", dec.Line(), m.Verify.Mode))
				continue
			}
			res := rec.verified(*m.Verify)
			rec.event(Event{Stage: StageVerify, Mode: m.Verify.Mode, Algorithm: m.Verify.Algorithm, Msg: res.Verdict})
			traceVerify(rec.trace, rec.board, *m.Verify, time.Now())
		case protocol.TypeRaw:
			m.Raw.ID += rec.rawBase
			rec.rawMax = max(rec.rawMax, m.Raw.ID)
			if err := rec.sink.Raw(ctx, rec.board, *m.Raw); err != nil {
				return fmt.Errorf("store raw output: %w", err)
			}
		case protocol.TypeFacts:
			// the sweep's own probe adds what the board looked like before it (validity evidence, preparation)
			if rec.resumed {
				continue // a sweep after a reboot: the board run keeps the facts of its start
			}
			capFacts(m.Facts)
			meter.facts(m.Facts)
			if err := rec.facts(ctx, *m.Facts); err != nil {
				return err
			}
		case protocol.TypeError:
			*agentErrs = append(*agentErrs, m.Error)
		case protocol.TypeDone:
			return nil
		}
	}
}

func (r *recorder) point(ctx context.Context, p protocol.Point, plan protocol.Plan, onPoint func(progressKey)) error {
	key := storedKey{p.Mode, p.Algorithm, p.Op, p.BlockSize, p.KeyBits, p.Curve, p.Repeat}
	r.mu.Lock()
	dup := r.stored[key]
	if r.stored == nil {
		r.stored = map[storedKey]bool{}
	}
	r.stored[key] = true
	r.mu.Unlock()
	if dup && r.resumed {
		return nil // measured before the board was lost: the first is kept
	}
	r.markVerification(&p)
	if err := r.sink.Point(ctx, r.board, p); err != nil {
		return fmt.Errorf("store point: %w", err)
	}
	// the points of every driver kcapi:all measures fill that mode's one planned slot per size
	planMode, ok := protocol.PlanMode(plan.Modes, p.Mode)
	if !ok {
		planMode = p.Mode
	}
	k := progressKey{mode: planMode, alg: p.Algorithm + "/" + fmt.Sprint(p.KeyBits, p.Curve), size: p.BlockSize, repeat: p.Repeat}
	r.mu.Lock()
	r.points++
	if p.Failed {
		r.failed++
		r.failures = append(r.failures, pointFailure{what: p.Mode + " " + p.Algorithm, reason: p.Error})
	} else {
		if r.good == nil {
			r.good = map[string]int{}
		}
		r.good[p.Mode]++
		if planMode != p.Mode {
			r.good[planMode]++
		}
	}
	if r.slots == nil {
		r.slots = map[progressKey]bool{}
	}
	r.slots[k] = true
	r.mu.Unlock()
	onPoint(progressKey{mode: planMode, alg: p.Algorithm, size: p.BlockSize})
	return nil
}

func (r *recorder) skip(ctx context.Context, s protocol.Skip, plan protocol.Plan) error {
	if r.resumed && slices.ContainsFunc(r.skipList(), func(k protocol.Skip) bool { return k.Mode == s.Mode && k.Algorithm == s.Algorithm }) {
		return nil // said before the board was lost
	}
	if err := r.sink.Skip(ctx, r.board, s); err != nil {
		return fmt.Errorf("store skip: %w", err)
	}
	n := 0
	switch {
	case protocol.IsKCAPIMode(s.Mode) && s.Mode != protocol.ModeKCAPI && !slices.Contains(plan.Modes, s.Mode):
		// one driver of kcapi:all: the others still fill the mode's slots
	case s.Algorithm != "":
		n = slotsPerAlgorithm(plan, s.Algorithm)
	case r.unavailable[s.Mode]:
		// left out of the progress total already
	default:
		for _, alg := range plan.Algorithms {
			n += slotsPerAlgorithm(plan, alg)
		}
	}
	r.mu.Lock()
	r.skips++
	r.skipped = append(r.skipped, s)
	r.slotsSkipped += n
	r.mu.Unlock()
	return nil
}

func factsSummary(f *protocol.Facts) string {
	parts := []string{f.Machine}
	if f.Kernel != "" {
		parts = append(parts, "Linux "+f.Kernel)
	}
	if f.OpenSSLVersion != "" {
		parts = append(parts, "OpenSSL "+f.OpenSSLVersion)
	}
	// the modes are not listed here: ModeReport says which were measured, which are missing and why
	return strings.Join(parts, ", ")
}

// withStderr adds the tail of a command's stderr to its error.
func withStderr(err error, stderr string) error {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return err
	}
	if len(stderr) > 400 {
		stderr = "…" + stderr[len(stderr)-400:] // the end says why
	}
	return fmt.Errorf("%w: %s", err, stderr)
}
