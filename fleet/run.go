package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// RunOptions is one sweep over a set of boards.
type RunOptions struct {
	Boards      []inventory.Board
	Sweep       inventory.Profile // algorithms, modes, sizes, seconds, threads, repeats
	ModesSet    bool              // Sweep.Modes came from the command line: it wins over each board's modes
	Concurrency int               // boards at once; 0 means 8

	// Dial connects to a board that is not local (the SSH transport). Required when a remote board is selected.
	Dial func(ctx context.Context, b inventory.Board) (Transport, error)
	// Agent returns the path of an agent binary on the host for a board's arch ("arm64", "armv7", ...).
	Agent func(ctx context.Context, arch string) (string, error)

	Progress Progress
	Logf     func(format string, args ...any)

	// QuietWait and Governor prepare each board (issue 12) and win over boards.toml: nil and "" leave it to
	// each board's and profile's validity table.
	QuietWait *time.Duration
	Governor  string

	// TransferSizes are the bytes per transfer of mode ssh (nil: protocol.DefaultSSHTransferBytes); Sweep.Sizes
	// are the other modes' block sizes.
	TransferSizes []int

	sshGate chan struct{} // one board's ssh points at a time (sshmode.go); made by Run
}

// BoardOutcome is how one board's part of a run ended.
type BoardOutcome struct {
	Board   string
	Status  protocol.Status // ok, partial, failed or interrupted
	Err     error           // the cause, unless ok
	Points  int
	Skips   int
	Skipped []protocol.Skip // what was not measured, with the reason
	Failed  int             // points the agent marked failed (engine fallback, 0.00 s, ...)
	Arch    string
	Pushed  int64
	Summary string     // e.g. "x86_64, Linux 6.1, OpenSSL 3.0.19"
	Modes   ModeReport // what was measured, what is not available and why, what was not asked for; empty before the probe
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
	sink = withValidity(sink, opts.Boards, opts.Sweep) // issue 12: every point and board run gets a verdict
	opts.sshGate = make(chan struct{}, 1)
	limit := concurrency(opts.Concurrency)
	outcomes := make([]BoardOutcome, len(opts.Boards))
	var g errgroup.Group
	g.SetLimit(limit)
	for i, b := range opts.Boards {
		g.Go(func() error {
			outcomes[i] = runBoard(ctx, opts, b, sink)
			return nil
		})
	}
	_ = g.Wait()
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

// runBoard is one board end to end: connect, deploy, probe, sweep.
func runBoard(ctx context.Context, opts RunOptions, b inventory.Board, sink Sink) BoardOutcome {
	out := BoardOutcome{Board: b.Name}
	rec := &recorder{sink: sink, board: b.Name}
	ev := func(e Event) { e.Board = b.Name; opts.Progress.Event(e) }
	var modes func() ModeReport // set once the probe has spoken
	finish := func(err error) BoardOutcome {
		out.Points, out.Skips, out.Failed = rec.counts()
		if modes != nil {
			out.Modes = modes()
		}
		out.Skipped = rec.skipList()
		out.Err = err
		switch {
		case err == nil:
			out.Status = protocol.StatusOK
		case ctx.Err() != nil:
			out.Status = protocol.StatusInterrupted
		case out.Points > 0:
			out.Status = protocol.StatusPartial
		default:
			out.Status = protocol.StatusFailed
		}
		cause := ""
		if err != nil {
			cause = err.Error()
		}
		// The board's end must be recorded even when the run was cancelled.
		if serr := sink.BoardFinished(context.WithoutCancel(ctx), b.Name, out.Status, cause); serr != nil && out.Err == nil {
			out.Err, out.Status = fmt.Errorf("store %s: %w", b.Name, serr), protocol.StatusFailed
		}
		ev(Event{Stage: StageDone, Status: out.Status, Msg: cause})
		return out
	}
	if err := sink.BoardStarted(ctx, b.Name); err != nil {
		return finish(fmt.Errorf("store %s: %w", b.Name, err))
	}

	ev(Event{Stage: StageConnect})
	t, err := connect(ctx, opts, b)
	if err != nil {
		return finish(err)
	}
	defer t.Close()

	ev(Event{Stage: StageDeploy})
	d, err := deployAgent(ctx, opts, b, t)
	if err != nil {
		return finish(err)
	}
	out.Arch, out.Pushed = d.arch, d.pushed
	msg := fmt.Sprintf("agent %s, pushed %d bytes", d.remote, d.pushed)
	if d.pushed == 0 {
		msg = fmt.Sprintf("agent %s already there, pushed 0 bytes", d.remote)
	}
	ev(Event{Stage: StageDeploy, Msg: msg})

	plan := boardPlan(opts, b)
	preparePlan(&plan, opts, b)
	ev(Event{Stage: StageProbe})
	facts, err := probe(ctx, t, d.remote, b, plan.Modes)
	if err != nil {
		return finish(fmt.Errorf("probe %s: %w", b.Name, err))
	}
	out.Summary = factsSummary(facts)
	addSSHModeFact(facts, plan.Modes, t) // issue 15: mode ssh is the controller's, not the probe's
	if err := rec.facts(ctx, *facts); err != nil {
		return finish(err)
	}
	if len(plan.Modes) == 0 {
		plan.Modes = planModes(facts)
	}
	modes = func() ModeReport { return modeReport(facts, plan.Modes, rec.goodByMode()) }

	// Progress counts what will be measured: a mode the probe found unavailable is one skip, not a run of slots.
	rec.unavailable = unavailableModes(facts)
	// Mode ssh is measured by the controller after the agent's sweep (sshmode.go).
	agentSweep, sshSweep := agentPlan(plan), sshPlan(plan, opts.TransferSizes)
	total := plannedPoints(withoutModes(agentSweep, rec.unavailable)) + sshSlots(sshSweep, rec.unavailable)
	ev(Event{Stage: StageSweep, Total: total})
	onPoint := func(p progressKey) {
		ev(Event{Stage: StageSweep, Done: rec.done(), Total: total, Mode: p.mode, Algorithm: p.alg, Size: p.size})
	}
	if len(agentSweep.Modes) > 0 {
		err = sweep(ctx, t, d.remote, agentSweep, rec, onPoint)
	}
	if err == nil && sshSweep != nil {
		err = measureSSH(ctx, opts, b, t, d.remote, sshSweep, rec, onPoint)
	}
	if err != nil {
		return finish(fmt.Errorf("sweep %s: %w", b.Name, err))
	}
	// A sweep that ran to its end can still have measured nothing it was asked to: that board is not ok.
	if err := opensslProblem(facts, agentSweep.Modes); err != nil {
		return finish(fmt.Errorf("%s: %w", b.Name, err))
	}
	_, _, failed := rec.counts()
	if err := nothingMeasured(plan, rec.goodByMode(), failed, rec.skipList()); err != nil {
		return finish(fmt.Errorf("%s: %w", b.Name, err))
	}
	return finish(nil)
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
	good                  map[string]int // points not marked failed, per mode
	skipped               []protocol.Skip
	slots                 map[progressKey]bool
	slotsSkipped          int             // planned slots covered by skips
	unavailable           map[string]bool // modes the probe found unavailable: not in the progress total
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
