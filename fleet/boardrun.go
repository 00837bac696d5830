package fleet

import (
	"context"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// A boardRun is one board's part of a run, end to end under its lease. Its phases are methods, each in a file
// of its own: connect (boardrun_connect.go), plan (boardrun_plan.go), measure through the agent or the board's
// shell, then mode ssh (boardrun_measure.go), resume after a reboot (boardrun_resume.go) and finish
// (boardrun_finish.go). The fields are what the phases share: they were closures' captured variables and
// functions' nine parameters, and they are here so that each phase says only what differs.
type boardRun struct {
	// ctx is the board's: the run's until the lease is held, then the lease's, which is cancelled when another
	// run may have the board. finish stores the board's end on a context that outlives it.
	ctx context.Context
	// opts is the run's, the same for every board; Run made its sshGate (one board's mode ssh at a time).
	opts RunOptions
	// b is the board as boards.toml describes it.
	b inventory.Board
	// sink receives the board's start, kernel health and end; what the sweep produces goes through rec.
	sink Sink
	// place is the board's turn among the run's Concurrency boards, which it leaves while another run holds
	// its lease.
	place *place
	// lease keeps the board to this run; finish asks it whether the board stopped because the lease was lost
	// rather than because of the user.
	lease *heldLease
	// t is the board's transport. It is a field and not a phase's local because resume replaces it when the
	// board answers again after a reboot, and close must close the last one.
	t Transport
	// rec forwards what the board produces to sink and counts it. nil in boards check, which only probes: its
	// sessions send no plan before the facts.
	rec *recorder
	// out is the outcome the phases fill as they learn it (arch, bytes pushed, summary) and finish completes.
	out BoardOutcome

	// plan is the board's whole sweep, mode ssh's included; onFacts fills its modes from the facts when neither
	// the run nor boards.toml named any.
	plan protocol.Plan
	// agentSweep is what the agent (or the shell path) sweeps, and what resume goes on with after a reboot;
	// sshSweep is mode ssh's, which the controller measures after it (nil: not asked for).
	agentSweep protocol.Plan
	sshSweep   *protocol.Plan
	// shellWhy says why the board is measured through its shell (shellpath.go); "" while the agent measures it.
	shellWhy string
	// deployed is the agent on the board: mode ssh's transfers go into and out of it.
	deployed deployed
	// facts are the board's once the probe has spoken (nil before): the end judges openssl and the modes by them.
	facts *protocol.Facts
	// modesKnown says that the facts are stored and the plan's modes settled: only then does the outcome report
	// what became of every mode.
	modesKnown bool
	// total is how many points the progress counts to: a mode the probe found unavailable is one skip, not a
	// run of slots.
	total int
	// endPhase ends the trace of the phase in flight: the phases start and end in callbacks (deploy, probe,
	// sweep), so it is the run's and not a local of one method.
	endPhase func()
}

// newBoardRun is b's run, not started: nothing is leased or connected yet.
func newBoardRun(ctx context.Context, opts RunOptions, b inventory.Board, sink Sink, p *place) *boardRun {
	r := &boardRun{ctx: ctx, opts: opts, b: b, sink: sink, place: p, out: BoardOutcome{Board: b.Name},
		rec:      &recorder{sink: sink, board: b.Name, kernel: newKernelJudge(b.KernelPatterns), trace: opts.Trace},
		endPhase: func() {}}
	r.rec.progress = r.event // each verification and each point's start shows in the board's progress
	return r
}

// run is the board's part of the run, phase by phase: lease and connect, plan, deploy, probe and sweep (through
// the agent or the board's shell, resumed after a reboot), mode ssh. Every way out goes through finish.
func (r *boardRun) run() BoardOutcome {
	defer r.close()
	if err := r.connect(); err != nil {
		return r.finish(err)
	}
	r.planSweep()
	var err error
	if r.shellWhy == "" {
		var deployedOK bool
		if deployedOK, err = r.measureAgent(); !deployedOK && err != nil {
			return r.finish(err) // the deployment's: nothing was measured
		}
	}
	if r.shellWhy != "" {
		err = r.measureShellPath()
	}
	r.endPhase()
	if err != nil && r.ctx.Err() == nil && boardLost(err) && r.shellWhy == "" {
		err = r.resume(err)
	}
	if err == nil && r.sshSweep != nil {
		err = r.measureModeSSH()
	}
	return r.finish(r.sweptError(err))
}

// event reports e as the board's.
func (r *boardRun) event(e Event) {
	e.Board = r.b.Name
	r.opts.Progress.Event(e)
}

// close closes the transport (the last one, after any reconnect) and then gives the lease back: after finish,
// once the board is done with.
func (r *boardRun) close() {
	if r.t != nil {
		func() { defer r.opts.Trace.Phase(r.b.Name, "close")(); r.t.Close() }()
	}
	if r.lease != nil {
		r.lease.release()
	}
}
