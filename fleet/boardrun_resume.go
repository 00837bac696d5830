package fleet

import (
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// resume deals with a board lost mid-sweep (lostErr): it stores the job in flight as a failed point and, with a
// reconnect wait, waits for the board, records the reboot, leaves out the lost mode and algorithm and measures
// the rest of the agent's sweep on the new connection, which replaces r.t. It returns nil when the rest was
// measured, else the cause, which wraps errBoardLost when the board did not come back.
func (r *boardRun) resume(lostErr error) error {
	ctx, opts, b, rec, plan := r.ctx, r.opts, r.b, r.rec, r.agentSweep
	queue := []protocol.Plan{plan}
	for n := 0; ; n++ {
		lost, with := rec.kernel.lostDuring(), rec.kernel.lostWith()
		if lost == nil {
			return lostErr // lost between jobs or after the sweep's end: nothing was in flight
		}
		label := lost.Label()
		if err := rec.point(ctx, lostPoint(*lost), plan, r.onPoint); err != nil {
			return err
		}
		wait := reconnectWaitFor(opts, b)
		bootBefore, since := rec.kernel.boot()
		if wait <= 0 || n >= maxReboots {
			rec.kernel.rebooted(protocol.Reboot{During: label, BootBefore: bootBefore}, nil)
			why := "no reconnect wait (--reconnect-wait or reconnect_wait)"
			if wait > 0 {
				why = fmt.Sprintf("lost %d times", n+1)
			}
			return fmt.Errorf("%s: %w during %s (%s): %v", b.Name, errBoardLost, label, why, lostErr)
		}
		r.event(Event{Stage: StageConnect, Msg: fmt.Sprintf("board lost during %s; waiting up to %v for it to answer again", label, wait)})
		r.t.Close()
		nt, st, err := r.reconnect(wait, since)
		if err != nil {
			r.t = closedTransport{}
			rec.kernel.rebooted(protocol.Reboot{During: label, BootBefore: bootBefore}, nil)
			return fmt.Errorf("%s: %w during %s: %v", b.Name, errBoardLost, label, err)
		}
		r.t = traced(nt, b.Name, opts.Trace)
		rec.kernel.rebooted(protocol.Reboot{During: label, BootBefore: bootBefore, BootAfter: st.bootID,
			Panic: panicExcerpt(st.panic)}, st.panic)
		rec.resumed = true
		if err := rec.skip(ctx, protocol.Skip{Mode: lost.Mode, Algorithm: lost.Algorithm,
			Reason: "left out: the board was lost during " + label}, queue[0]); err != nil {
			return err
		}
		d, err := deployAgent(ctx, opts, b, r.t)
		if err != nil {
			return fmt.Errorf("after the board came back: %w", err)
		}
		// What is left: the rest of the plan that was running, then the plans queued after it.
		queue = append(restPlans(queue[0], *lost, with), queue[1:]...)
		lostErr = nil
		for len(queue) > 0 {
			p := queue[0]
			onFacts := func(*protocol.Facts) (protocol.Plan, error) { return p, nil }
			rec.rawBase = rec.rawMax
			err := r.measure(d.remote, p, onFacts)
			if err != nil && ctx.Err() == nil && boardLost(err) {
				lostErr = err
				break
			}
			if err != nil {
				return err
			}
			queue = queue[1:]
		}
		if lostErr == nil {
			return nil
		}
	}
}
