package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// sweptError is the board run's error once it has measured what it could: err, the measuring's, with a wrong
// output first; else what a sweep that ran to its end still got wrong.
func (r *boardRun) sweptError(err error) error {
	if werr := r.rec.wrongOutput(); err != nil && werr != nil {
		err = fmt.Errorf("%w; %w", werr, err) // the wrong output first: it is why the nightly is red
	}
	if err != nil {
		return err
	}
	// A sweep that ran to its end can still have measured nothing it was asked to: that board is not ok.
	if err := opensslProblem(r.facts, agentPlan(r.plan).Modes); err != nil {
		return fmt.Errorf("%s: %w", r.b.Name, err)
	}
	if err := r.rec.wrongOutput(); err != nil {
		return fmt.Errorf("%s: %w", r.b.Name, err)
	}
	if err := nothingMeasured(r.plan, r.rec.goodByMode(), r.rec.failureList(), r.rec.skipList()); err != nil {
		return fmt.Errorf("%s: %w", r.b.Name, err)
	}
	return nil
}

// finish is the board run's last phase, whatever ended it: the outcome from what was recorded and err (nil: the
// board was measured), the kernel's health and the board's end stored, the progress told.
func (r *boardRun) finish(err error) BoardOutcome {
	ctx, sink, out, rec, b, lease := r.ctx, r.sink, &r.out, r.rec, r.b, r.lease
	if lost := lease.lost(); lost != nil && err != nil {
		err = lost // the board stopped because another run may have it now, not because of the user
	}
	out.Points, out.Skips, out.Failed = rec.counts()
	if r.modesKnown {
		out.Modes = modeReport(r.facts, r.plan.Modes, rec.goodByMode())
	}
	out.Skipped = rec.skipList()
	if r.plan.Power != nil && r.facts != nil && r.facts.Power != nil {
		out.EnergyUnknown = r.facts.Power.Unknown
	}
	out.FailedWhy = failedClause(rec.failureList())
	err, failed := r.kernelError(err)
	out.Verification = rec.verificationSummary()
	out.Err = err
	if serr := sink.BoardKernel(context.WithoutCancel(ctx), b.Name, rec.kernel.result()); serr != nil && out.Err == nil {
		out.Err = fmt.Errorf("store kernel health of %s: %w", b.Name, serr)
	}
	err = out.Err
	switch {
	case failed:
		out.Status = protocol.StatusFailed
	case err == nil:
		out.Status = protocol.StatusOK
	case ctx.Err() != nil && lease.lost() == nil:
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
	if out.Status == protocol.StatusInterrupted {
		cause = interruptedCause(err) // "sweep local: context canceled" is Go's word for Ctrl-C
	}
	out.Cause = cause
	// The board's end must be recorded even when the run was cancelled.
	if serr := sink.BoardFinished(context.WithoutCancel(ctx), b.Name, out.Status, cause); serr != nil && out.Err == nil {
		out.Err, out.Status = fmt.Errorf("store %s: %w", b.Name, serr), protocol.StatusFailed
	}
	r.event(Event{Stage: StageDone, Status: out.Status, Msg: cause})
	return *out
}

// kernelError is err, or when the board was measured, what the kernel said against it: an Oops, BUG or panic
// during the sweep, and a board lost under it, fail the board run whatever it measured.
func (r *boardRun) kernelError(err error) (_ error, failed bool) {
	if err == nil {
		var why []string
		if cause := r.rec.kernel.rebootCause(); cause != "" {
			why = append(why, cause)
		}
		if fatal := r.rec.kernel.fatalLine(); fatal != "" {
			why = append(why, "kernel: "+fatal)
		}
		if len(why) > 0 {
			err, failed = fmt.Errorf("%s: %s", r.b.Name, strings.Join(why, "; ")), true
		}
	}
	if errors.Is(err, errBoardLost) {
		failed = true
	}
	return err, failed
}

// interruptedCause says what a board was doing when the run was interrupted, in the user's words.
func interruptedCause(err error) string {
	msg := strings.TrimSuffix(err.Error(), ": "+context.Canceled.Error())
	if msg == context.Canceled.Error() || msg == "" {
		return "interrupted"
	}
	return "interrupted during " + msg
}
