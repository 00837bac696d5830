package fleet

import "fmt"

// connect is the board run's first phase: the lease, the board's start in the record, and the transport.
// The lease comes first, so that the board run's start and finish bound the time this run had the board.
func (r *boardRun) connect() error {
	lease, err := takeLease(r.ctx, r.opts, r.b.Name, r.event, r.place)
	if err != nil {
		r.lease = &heldLease{ctx: r.ctx}
		return err
	}
	r.lease = lease   // released by close, after finish and after the transport's Close
	r.ctx = lease.ctx // cancelled when the lease is lost
	if err := r.sink.BoardStarted(r.ctx, r.b.Name); err != nil {
		return fmt.Errorf("store %s: %w", r.b.Name, err)
	}

	r.event(Event{Stage: StageConnect})
	r.endPhase = r.opts.Trace.Phase(r.b.Name, "connect")
	t, err := connect(r.ctx, r.opts, r.b)
	r.endPhase()
	if err != nil {
		return err
	}
	r.t = traced(t, r.b.Name, r.opts.Trace)
	return nil
}
