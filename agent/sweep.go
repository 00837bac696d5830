package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
)

// sweepJob is one measurement command of a sweep: an openssl run or one kcapi point.
type sweepJob struct {
	mode, alg string
	speed     *speedCommand // openssl modes
	series    *speedCommand // the one command measuring this job's whole series (sweep_series.go); nil: none
	kcapi     *kcapiJob     // kcapi mode
	pin       *pinTarget    // the CPUs it runs on (sweep_pin.go); nil: where the scheduler puts it
}

// sweepState is what a running sweep carries between jobs.
type sweepState struct {
	plan           protocol.Plan
	facts          protocol.Facts
	enc            *protocol.Encoder
	root           string // prefix of /proc (tests); "" is the real one
	rawID          int
	done           protocol.Done
	threads        int
	sent           []protocol.Point           // the points of the job running now, for the repeat loop
	kernel         *kernelWatch               // the kernel log's new lines go with each point
	sessionDrivers map[string]devcryptoAnswer // devcrypto: algorithm → cryptodev's session driver, or why not
	softDrivers    string                     // devcrypto engine's USE_SOFTDRIVERS in the OpenSSL configuration
	softDriversWhy string                     // where softDrivers comes from; "" until read
	loaded         map[string]bool            // modes whose concurrency check has run (once per mode, verify.go)
	remote         Remote                     // the board the controller drives through its shell (remote.go); nil: this one
	direct         directRequest              // the verification's one-piece requests (verify_direct.go); nil: the kernel's
	sampler        *systemSampler             // the system readings around each point, its files kept open
	power          *sweepPower                // each point's energy (power_sweep.go); nil: none asked for
	seriesWhy      map[string][]string        // why a (mode, algorithm) runs one openssl per size → which ones
	asymFailed     bool                       // a public-key group's run failed: each algorithm runs alone
}

// Sweep measures plan and streams facts, raw, point, skip, log and error lines to enc. A mode or algorithm that
// cannot be measured yields one skip with the reason, a failing command an error line, and the sweep goes on.
// Repeats are interleaved: every series (one openssl for all default sizes, sweep_series.go) and every other
// mode once for a block size runs before any runs again; with a precision target only the points not yet
// precise run again (sweep_repeat.go), those of a series left each in its own process. It returns the counts
// for the done line, and an error only when ctx ends or enc cannot write.
func Sweep(ctx context.Context, plan protocol.Plan, enc *protocol.Encoder) (protocol.Done, error) {
	return sweepWith(ctx, plan, enc, "")
}

func sweepWith(ctx context.Context, plan protocol.Plan, enc *protocol.Encoder, root string) (protocol.Done, error) {
	return sweepProbed(ctx, plan, enc, root, nil)
}

// probed is a probe this session has made already (measure): the sweep reuses it instead of probing again.
type probed struct {
	pre         evidenceSample // taken before the probe
	facts       protocol.Facts
	opensslPath string
	version     *opensslVersion
	opts        ProbeOptions
	remote      *remoteProbed // a board measured from the controller (RemoteSweep); nil: this one
}

// sweepProbed is Sweep, reusing p when it was made with the plan's probe options and the plan prepares nothing
// (a governor set or a quiet wait changes the board, so the facts are read again after it).
func sweepProbed(ctx context.Context, plan protocol.Plan, enc *protocol.Encoder, root string, p *probed) (protocol.Done, error) {
	if plan.Repeats < 1 {
		plan.Repeats = 1
	}
	// the probe options of the plan as the controller sent it, before the shell path drops what it cannot prepare
	popts := probeOptionsForPlan(plan)
	popts.Root = root
	if p != nil {
		popts.CacheDir = p.opts.CacheDir
	}
	prepared, restore := prepareBoard(ctx, &plan, enc, root, p)
	defer restore()
	p = probeForSweep(ctx, plan, popts, root, p)
	s := &sweepState{plan: plan, facts: sweepFacts(p, root, prepared), enc: enc, root: root, threads: max(plan.Threads, 1)}
	defer s.closeSampler()
	if p.remote != nil {
		s.remote = p.remote.board
	}
	s.facts.Power = s.startPower(ctx, s.facts.Power)
	defer s.stopPower()
	if err := s.announce(ctx, p.opensslPath, p.version); err != nil {
		return s.done, err
	}
	jobs, err := s.planJobs(ctx, p.opensslPath, p.version)
	if err != nil {
		return s.done, err
	}
	err = s.measure(ctx, jobs) // before s.done is read: the measuring counts into it
	return s.done, err
}

// probeForSweep is the probe the sweep starts from: p, unless the sweep prepared the board or asks for other
// probe options than p was made with (a board measured from the controller keeps its probe: nothing was
// prepared on it). A new probe's background load is measured over the probe itself.
func probeForSweep(ctx context.Context, plan protocol.Plan, popts ProbeOptions, root string, p *probed) *probed {
	if p == nil || p.remote == nil && (plan.Governor != "" || plan.QuietWaitS > 0 || !sameProbe(p.opts, popts)) {
		p = &probed{pre: sampleEvidence(root)}
		p.facts, p.opensslPath, p.version = probeFacts(ctx, popts)
	}
	return p
}

// sweepFacts are p's facts as the sweep sends them: with the board's state before the sweep, its background load
// measured over the probe (up to the end of the remote probe for a board measured from the controller), and what
// was done to prepare the board.
func sweepFacts(p *probed, root string, prepared []string) protocol.Facts {
	facts := p.facts
	if p.remote != nil {
		facts.Evidence = evidenceBetween(p.pre, p.remote.post)
	} else {
		facts.Evidence = evidenceBetween(p.pre, sampleEvidence(root))
	}
	facts.Prepared = prepared
	return facts
}

// announce sends the facts, then which openssl the sweep runs and what its version cannot do, before any job is
// prepared: the controller stores the facts even when the sweep ends here.
func (s *sweepState) announce(ctx context.Context, opensslPath string, version *opensslVersion) error {
	if err := s.enc.Encode(protocol.TypeFacts, &s.facts); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if version == nil {
		return nil
	}
	msg := fmt.Sprintf("openssl %s at %s", s.facts.OpenSSLVersion, opensslPath)
	if !version.atLeast(1, 1, 1) {
		msg += ": no -seconds or -bytes, every run measures OpenSSL's default sizes for its default time"
	}
	return s.enc.Encode(protocol.TypeLog, &protocol.Log{Level: "info", Msg: msg})
}

// measure runs the prepared jobs with the interleaving: each series in one process, then for each algorithm and
// block size every other mode once, before any runs again. The kernel log is reported before and after the
// whole, and what it says while a point's command runs goes with the point.
func (s *sweepState) measure(ctx context.Context, jobs [][][]sweepJob) error {
	order, groups := schedule(jobs)
	for _, note := range seriesNotes(groups, s.seriesWhy, s.remote != nil) {
		if err := s.enc.Encode(protocol.TypeLog, &protocol.Log{Level: "info", Msg: note}); err != nil {
			return err
		}
	}
	if err := s.watchKernel(ctx); err != nil {
		return err
	}
	defer s.kernel.close()
	if err := s.enc.Encode(protocol.TypeKernel, s.kernel.report(ctx, "before")); err != nil {
		return err
	}
	members := make([][]int, len(groups))
	for i, g := range groups {
		members[i] = g.jobs
	}
	_, err := newRepeater(s.plan).loopGroups(ctx, len(order), members, func(ctx context.Context, g int, active []int, rep int) ([][]protocol.Point, error) {
		return s.runGroup(ctx, order, groups[g], active, rep)
	})
	if err != nil {
		return err
	}
	return s.enc.Encode(protocol.TypeKernel, s.kernel.report(ctx, "after"))
}

// begin names the job for the controller before it runs.
func (j sweepJob) begin(repeat int) *protocol.Begin {
	b := &protocol.Begin{Mode: j.mode, Algorithm: j.alg, Repeat: repeat}
	switch {
	case j.speed != nil:
		b.BlockSize = j.speed.Size
	case j.kcapi != nil:
		b.BlockSize = j.kcapi.size
	}
	return b
}

// watchKernel opens the kernel log's watch, on the board the sweep measures, with the plan's patterns. A pattern
// that does not compile is an error line (the controller checked them: a plan written by something else), and
// the watch matches the others.
func (s *sweepState) watchKernel(ctx context.Context) error {
	match, err := protocol.NewKernelMatcher(s.plan.KernelPatterns)
	if err != nil {
		if err := s.errorf("%v", err); err != nil {
			return err
		}
	}
	if s.remote != nil {
		s.kernel = openRemoteKernelWatch(ctx, s.remote, match)
	} else {
		s.kernel = openKernelWatch(ctx, kernelPathsAt(s.root), match, s.root)
	}
	return nil
}

// kernelPathsAt is where the kernel watch reads under a test's root ("" is the real system).
func kernelPathsAt(root string) kernelPaths {
	if root == "" {
		return defaultKernelPaths
	}
	return kernelPaths{kmsg: root + "/dev/kmsg", dmesgRestrict: root + "/proc/sys/kernel/dmesg_restrict",
		dmesg: []string{root + "/bin/dmesg", "-r"}}
}

func (s *sweepState) run(ctx context.Context, j sweepJob, repeat int) error {
	if j.kcapi != nil {
		return s.runKcapi(ctx, j, repeat)
	}
	return s.runOpenSSL(ctx, j, repeat)
}

func (s *sweepState) skip(mode, alg, reason string) error {
	s.done.Skips++
	return s.enc.Encode(protocol.TypeSkip, &protocol.Skip{Mode: mode, Algorithm: alg, Reason: reason})
}

func (s *sweepState) errorf(format string, a ...any) error {
	return s.enc.Encode(protocol.TypeError, fmt.Sprintf(format, a...))
}

func (s *sweepState) point(p *protocol.Point) error {
	s.done.Points++
	if p.Failed {
		s.done.Failed++
	}
	if s.plan.PrecisionPct > 0 {
		p.Flags = append(p.Flags, precision.Flag(s.plan.PrecisionPct, s.plan.Repeats))
	}
	p.Kernel, p.KernelTally = s.kernel.poll(context.Background()) // what the kernel said while the point's command ran
	s.stampEnergy(p)
	s.sent = append(s.sent, *p)
	return s.enc.Encode(protocol.TypePoint, p)
}

// isSweepCipher reports whether a canonical algorithm is a symmetric cipher (decryption is measured too when
// the plan asks for it); digests and asymmetric algorithms are not.
func isSweepCipher(alg string) bool {
	for _, p := range []string{"aes", "aria", "camellia", "chacha20", "des", "sm4", "bf-", "cast", "seed", "rc2", "rc4", "idea"} {
		if strings.HasPrefix(alg, p) {
			return true
		}
	}
	return false
}
