package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

// RunOptions is one sweep over a set of boards.
type RunOptions struct {
	Boards      []inventory.Board
	Sweep       inventory.Profile // algorithms, modes, sizes, seconds, threads, repeats
	ModesSet    bool              // Sweep.Modes came from the command line: it wins over each board's modes
	CPUsSet     bool              // Sweep.CPUs came from the command line: it wins over each board's cpus
	Concurrency int               // boards at once; 0 means 8

	// Dial connects to a board that is not local (the SSH transport). Required when a remote board is selected.
	Dial func(ctx context.Context, b inventory.Board) (Transport, error)
	// Agent returns the path of an agent binary on the host for a board's arch ("arm64", "armv7", ...).
	Agent func(ctx context.Context, arch string) (string, error)

	Progress Progress
	Logf     func(format string, args ...any)

	// QuietWait and Governor prepare each board for valid points and win over boards.toml: nil and "" leave it to
	// each board's and profile's validity table.
	QuietWait *time.Duration
	Governor  string

	// Leases keeps each board to this run from before it connects until after its cleanup (nil: no leases, for
	// tests and runs without a database). A board another run holds waits up to LeaseWait (0: not at all), then
	// fails with a *LeaseHeldError; the other boards go on.
	Leases     Leaser
	LeaseWait  time.Duration
	LeaseTimes LeaseTimes

	// Trace, when set, receives the timing of each board's phases and SSH sessions (fleet run --trace).
	Trace Tracer

	// ReconnectWait, when set, is how long to wait for a board lost mid-sweep to answer again, over each board's
	// and profile's reconnect_wait (0: do not wait; the board fails with what it measured).
	ReconnectWait *time.Duration

	// TransferSizes are the bytes per transfer of mode ssh (nil: protocol.DefaultSSHTransferBytes); Sweep.Sizes
	// are the other modes' block sizes.
	TransferSizes []int

	// VerifyThreads is how many parallel workers the concurrency check of each accelerated mode runs for a few
	// seconds (-1: the board's cores; 0: no concurrency check). Every path is verified before it is measured.
	VerifyThreads int

	sshGate chan struct{} // one board's ssh points at a time (mode_ssh.go); made by Run
}

// BoardOutcome is how one board's part of a run ended.
type BoardOutcome struct {
	Board        string
	Status       protocol.Status // ok, partial, failed or interrupted
	Err          error           // the cause, unless ok
	Cause        string          // Err as stored and shown ("interrupted during …" rather than Go's "context canceled")
	Points       int
	Skips        int
	Skipped      []protocol.Skip // what was not measured, with the reason
	Failed       int             // points the agent marked failed (engine fallback, 0.00 s, ...)
	FailedWhy    string          // what failed and why, one line: "1 point failed: cpu aes-128-cbc: …"
	Arch         string
	Pushed       int64
	Summary      string     // e.g. "x86_64, Linux 6.1, OpenSSL 3.0.19"
	Verification Verified   // the paths whose output was checked, by verdict; zero when nothing was verified
	Modes        ModeReport // what was measured, what is not available and why, what was not asked for; empty before the probe
	// EnergyUnknown is why the board's points have no energy although boards.toml names a power source for it
	// (the shell path cannot sample a hwmon rail, the idle power could not be read…); "" when they have it or
	// none was asked for.
	EnergyUnknown string
}

// DefaultConcurrency is how many boards are measured at once when the caller does not say.
const DefaultConcurrency = 8

func concurrency(n int) int {
	if n <= 0 {
		return DefaultConcurrency
	}
	return n
}

// RunStatus is the status of a whole run from its boards' outcomes and Run's error: interrupted, ok, failed
// (no board measured anything) or partial.
func RunStatus(outs []BoardOutcome, err error) protocol.Status {
	switch {
	case errors.Is(err, context.Canceled):
		return protocol.StatusInterrupted
	case err == nil:
		return protocol.StatusOK
	}
	for _, o := range outs {
		if o.Points > 0 {
			return protocol.StatusPartial
		}
	}
	return protocol.StatusFailed
}

// ErrBoardsFailed is returned by Run when one or more boards did not finish ok.
var ErrBoardsFailed = errors.New("one or more boards failed")

// Run measures every board in opts.Boards, in parallel up to opts.Concurrency, handing what arrives to sink.
// A failing board never stops the others; its outcome carries the cause. The returned error is ctx.Err() when
// the run was interrupted, ErrBoardsFailed when any board did not finish ok, nil otherwise.
func Run(ctx context.Context, opts RunOptions, sink Sink) ([]BoardOutcome, error) {
	if opts.Progress == nil {
		opts.Progress = noProgress{}
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	sink = withValidity(sink, opts.Boards, opts.Sweep, opts.Logf) // every point and board run gets a validity verdict
	// Boards start in order, opts.Concurrency at a time; a board that waits for another run's lease gives its
	// place to the run's other boards meanwhile (errgroup's limit cannot be given back, hence the channel).
	places := make(chan struct{}, concurrency(opts.Concurrency))
	opts.sshGate = make(chan struct{}, 1)
	outcomes := make([]BoardOutcome, len(opts.Boards))
	var wg sync.WaitGroup
	for i, b := range opts.Boards {
		p := &place{ch: places}
		p.ch <- struct{}{}
		p.held = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.leave()
			outcomes[i] = newBoardRun(ctx, opts, b, sink, p).run()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return outcomes, err
	}
	for _, o := range outcomes {
		if o.Status != protocol.StatusOK {
			return outcomes, ErrBoardsFailed
		}
	}
	return outcomes, nil
}

// place is a board's turn among the run's Concurrency boards at once.
type place struct {
	ch   chan struct{}
	held bool
}

// leave gives the place to another board; it may be taken again with take.
func (p *place) leave() {
	if p != nil && p.held {
		<-p.ch
		p.held = false
	}
}

// take waits for a place.
func (p *place) take(ctx context.Context) error {
	if p == nil || p.held {
		return nil
	}
	select {
	case p.ch <- struct{}{}:
		p.held = true
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func connect(ctx context.Context, opts RunOptions, b inventory.Board) (Transport, error) {
	if b.Local {
		return NewLocal(), nil
	}
	if opts.Dial == nil {
		return nil, fmt.Errorf("connect %s: no SSH transport configured", b.Name)
	}
	return opts.Dial(ctx, b) // its errors name the board and address
}

// recorder forwards to the sink and counts, for the outcome and progress.
type recorder struct {
	sink  Sink
	board string

	mu                    sync.Mutex
	points, skips, failed int
	failures              []pointFailure // the failed points, with their reasons
	good                  map[string]int // points not marked failed, per mode
	skipped               []protocol.Skip
	slots                 map[progressKey]bool
	slotsSkipped          int             // planned slots covered by skips
	unavailable           map[string]bool // modes the probe found unavailable: not in the progress total

	kernel  *kernelJudge
	stored  map[storedKey]bool // every point stored, so that a sweep resumed after a reboot stores none twice
	resumed bool               // the board was lost and reconnected: facts are not stored again
	// A resumed sweep's agent numbers its raw outputs from 1 again: they are stored after the ones before.
	rawBase, rawMax int

	verifying     bool                         // the plan asked the agent to verify every path (verify.go)
	verdicts      map[verdictKey]verify.Result // per mode and algorithm
	wrong         []string                     // the wrong paths, for the board's error
	verifySeconds float64                      // the board's time spent verifying

	trace       Tracer     // fleet run --trace: each verification and point too (trace.go)
	tracePoints pointTimer // when the agent began the point in flight, and sent the last

	progress func(Event) // the board's progress: each verification and each point's start (nil: none)
}

// storedKey is one point of a sweep.
type storedKey struct {
	mode, alg, op string
	size, keyBits int
	curve         string
	repeat        int
}

func (r *recorder) facts(ctx context.Context, f protocol.Facts) error {
	if err := r.sink.BoardFacts(ctx, r.board, f); err != nil {
		return fmt.Errorf("store facts of %s: %w", r.board, err)
	}
	return nil
}

func (r *recorder) counts() (points, skips, failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.points, r.skips, r.failed
}

func (r *recorder) failureList() []pointFailure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.failures)
}

func (r *recorder) skipList() []protocol.Skip {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.skipped)
}

func (r *recorder) goodByMode() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]int, len(r.good))
	for k, v := range r.good {
		m[k] = v
	}
	return m
}

func (r *recorder) done() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.slots) + r.slotsSkipped
}
