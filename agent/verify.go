package agent

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Verification runs the deterministic inputs of package protocol (VerifyPattern, VerifyEdgeSizes) through the
// very path a mode measures and sends what came out; the controller judges it against its own crypto. The agent
// does not link Go's crypto (its size budget), so it never decides whether an output is right.

// verify sends the VerifyReport of one mode and algorithm, before it is measured.
func (s *sweepState) verify(ctx context.Context, openssl string, v *opensslVersion, mode, alg, bind string) error {
	var r protocol.VerifyReport
	start := time.Now()
	switch {
	case mode == protocol.ModeKCAPI || strings.HasPrefix(mode, protocol.ModeKCAPI+":"):
		r = s.verifyKcapi(ctx, mode, alg, bind)
	case v == nil:
		r = protocol.VerifyReport{Unknown: "no openssl on the board"}
	default:
		r = s.verifyOpenSSL(ctx, openssl, *v, mode, alg)
	}
	r.Mode, r.Algorithm, r.Seconds = mode, alg, time.Since(start).Seconds()
	return s.enc.Encode(protocol.TypeVerify, &r)
}

// verifyMode verifies mode's path for alg: kcapi:all once per driver its jobs bind (as kcapi:DRIVER, the mode
// their points carry), kcapi:DRIVER bound to its driver, every other mode as it is.
func (s *sweepState) verifyMode(ctx context.Context, openssl string, v *opensslVersion, mode, alg string, jobs []sweepJob) error {
	if mode == protocol.KCAPIAll {
		seen := map[string]bool{}
		for _, j := range jobs {
			if j.kcapi == nil || j.kcapi.driver == "" || seen[j.kcapi.driver] {
				continue
			}
			seen[j.kcapi.driver] = true
			if err := s.verify(ctx, openssl, v, protocol.KCAPIPrefix+j.kcapi.driver, alg, j.kcapi.driver); err != nil {
				return err
			}
		}
		return nil
	}
	bind := ""
	if d, ok := protocol.KCAPIDriver(mode); ok {
		bind = d
	}
	return s.verify(ctx, openssl, v, mode, alg, bind)
}

// verifySizes are the sweep's block sizes and the edge sizes, ascending, each once.
func verifySizes(plan protocol.Plan) []int {
	sizes := plan.Sizes
	if len(sizes) == 0 {
		sizes = protocol.DefaultSizes
	}
	out := append(slices.Clone(protocol.VerifyEdgeSizes), sizes...)
	protocol.SortInts(out)
	return slices.Compact(out)
}

// verifyWorkers is how many parallel workers the concurrency check of mode runs: none for the CPU's own modes,
// and none after the mode's first verified algorithm (the check is of the driver under load, once per mode: a
// few seconds each would cost more than the sweep it guards).
func (s *sweepState) verifyWorkers(mode string) int {
	_, loops := s.remote.(LoopsRemote)
	if !protocol.IsAccelerated(mode) || s.loaded[mode] || s.remote != nil && !loops {
		// a Remote of one command at a time cannot run parallel workers (its facts say so)
		return 0
	}
	if s.loaded == nil {
		s.loaded = map[string]bool{}
	}
	s.loaded[mode] = true
	switch n := s.plan.VerifyThreads; {
	case n < 0 && s.remote != nil:
		// the board's cores, not the controller's
		return max(s.facts.CPU.Cores, 1)
	case n < 0:
		return runtime.NumCPU()
	default:
		return n
	}
}

// verifyProcesses is how many openssl processes of a verification run at once: as many as the board has cores
// (the board is not measuring yet), one through a Remote.
func (s *sweepState) verifyProcesses() int {
	if s.remote != nil {
		return 1
	}
	return runtime.NumCPU()
}

// verifySeconds is how long a mode's concurrency check runs when the plan does not say (the tests' seam): a
// share of what the sweep measures in that mode, so that the check scales with the work it guards. The share is
// concurrencyShare of the mode's measuring (its algorithms × block sizes × seconds × repeats, at most its part
// of the budget), between a floor and 2 s: quick's 2 algorithms × 6 sizes × 1 s are 12 s a mode, and a check of
// 0.3 s; the nightly's hour and full's 5 repeats reach the 2 s every sweep had before. A check by the agent's own
// requests (afalg, devcrypto, kcapi) sends hundreds of requests a worker in 0.3 s on the QEMU boards (thousands
// in 2 s); a check by openssl loops (engine: and provider: modes, the shell path) pays a process start a run
// (0.1 s on the QEMU boards, idle), so its floor is 1 s: a few outputs a worker, overlapping.
func (s *sweepState) verifySeconds(loops bool) time.Duration {
	if s.plan.VerifySeconds > 0 {
		return time.Duration(s.plan.VerifySeconds * float64(time.Second))
	}
	floor := concurrencyFloor
	if loops {
		floor = concurrencyLoopsFloor
	}
	return concurrencySeconds(s.plan, floor)
}

const (
	concurrencyShare      = 0.025 // of a mode's measuring time
	concurrencyFloor      = 250 * time.Millisecond
	concurrencyLoopsFloor = time.Second
	concurrencyCap        = 2 * time.Second
)

// concurrencySeconds is concurrencyShare of what plan measures in one mode, between floor and concurrencyCap.
func concurrencySeconds(plan protocol.Plan, floor time.Duration) time.Duration {
	sizes := len(plan.Sizes)
	if sizes == 0 {
		sizes = len(protocol.DefaultSizes)
	}
	measuring := float64(len(plan.Algorithms)*sizes) * plan.Seconds * float64(max(plan.Repeats, 1))
	if plan.BudgetS > 0 && len(plan.Modes) > 0 {
		measuring = min(measuring, plan.BudgetS/float64(len(plan.Modes)))
	}
	d := time.Duration(measuring * concurrencyShare * float64(time.Second))
	return min(max(d, floor), concurrencyCap)
}

// verifyConcurrencySize is the input of the concurrency check: the sweep's largest block up to 16 KiB.
func verifyConcurrencySize(plan protocol.Plan) int {
	size := 0
	for _, n := range verifySizes(plan) {
		if n <= 16<<10 && n > size {
			size = n
		}
	}
	return size
}

// newVerifyCase records one output: whole when short, else as chunk digests.
func newVerifyCase(op string, size int, out []byte) protocol.VerifyCase {
	c := protocol.VerifyCase{Op: op, Size: size, OutLen: len(out)}
	if len(out) <= protocol.VerifyFullBytes {
		c.Out = hex.EncodeToString(out)
		return c
	}
	for i := 0; i < len(out); i += protocol.VerifyChunkBytes {
		d := newSHA256()
		d.Write(out[i:min(i+protocol.VerifyChunkBytes, len(out))])
		c.Chunks = append(c.Chunks, hex.EncodeToString(d.Sum(nil)[:8]))
	}
	return c
}

// sha256Hex is the hex SHA-256 of b, with the agent's own implementation.
func sha256Hex(b []byte) string {
	d := newSHA256()
	d.Write(b)
	return hex.EncodeToString(d.Sum(nil))
}

// distinctOutputs counts the distinct outputs of a concurrency check without hashing every one: outputs are
// compared whole, and only the few distinct ones are hashed at the end.
type distinctOutputs struct {
	outs   [][]byte
	counts []int
	other  int // outputs beyond the first eight distinct ones
}

func (d *distinctOutputs) add(out []byte) {
	for i, o := range d.outs {
		if string(o) == string(out) {
			d.counts[i]++
			return
		}
	}
	if len(d.outs) >= 8 {
		d.other++
		return
	}
	d.outs = append(d.outs, slices.Clone(out))
	d.counts = append(d.counts, 1)
}

func (d *distinctOutputs) merge(o *distinctOutputs) {
	for i, out := range o.outs {
		for range o.counts[i] {
			d.add(out)
		}
	}
	d.other += o.other
}

// report fills c's outputs; outputs past the eighth distinct one are counted as an error (all of them differ
// from the first eight, so at least seven are wrong whatever the oracle says).
func (d *distinctOutputs) report(c *protocol.VerifyConcurrency) {
	c.Outputs = map[string]int{}
	for i, out := range d.outs {
		c.Outputs[sha256Hex(out)] += d.counts[i]
		c.Ops += d.counts[i]
	}
	if d.other > 0 {
		c.Ops += d.other
		c.Errors = append(c.Errors, "more than 8 distinct outputs of one input")
	}
}

// verifyDir is a private directory for the verification's files beside the agent (its directory is the
// user's 0700 cache; the directory itself is 0700 too), emptied and removed by the returned function, which
// removes only the names the verification writes.
func verifyDir() (string, func(names ...string), error) {
	base := os.TempDir()
	if exe, err := os.Executable(); err == nil {
		base = filepath.Dir(exe)
	}
	dir := filepath.Join(base, ".verify-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", nil, err
	}
	return dir, func(names ...string) {
		for _, n := range names {
			os.Remove(filepath.Join(dir, n))
		}
		os.Remove(dir)
	}, nil
}
