package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fleetlab/fleet/internal/outlive"
	"github.com/fleetlab/fleet/protocol"
)

// Leaser keeps a board to one run at a time, across the processes and controllers that share a database. The
// store implements it for a run (store.RunWriter), without importing fleet. Run takes a lease per board before it
// connects to the board and gives it back after the board's cleanup, so nothing of two runs (deploy, probe,
// governor, sweep) overlaps on one board. Without a Leaser (tests, dry runs, no database) Run takes no lease.
type Leaser interface {
	// AcquireLease takes board for ttl when it is free, its holder's lease has expired, or its holder's process
	// is known to be gone (then the lease returned has Replaced set); otherwise it returns false and the lease
	// that holds the board.
	AcquireLease(ctx context.Context, board string, ttl time.Duration) (holder protocol.Lease, ok bool, err error)
	// RenewLease moves the expiry of the run's lease to ttl from now; false means the run no longer holds it.
	RenewLease(ctx context.Context, board string, ttl time.Duration) (ok bool, err error)
	// ReleaseLease gives the board back.
	ReleaseLease(ctx context.Context, board string) error
}

// LeaseTimes tune leases; zero fields take the defaults. Tests shorten them.
type LeaseTimes struct {
	// TTL is how long a lease lives without a heartbeat: a controller that died (SIGKILL, power cut, lost
	// network) holds its boards this long at most.
	TTL time.Duration
	// Heartbeat is how often a held lease is renewed (default: a sixth of TTL, at most DefaultLeaseHeartbeat);
	// several renewals fit in a TTL, so one slow write to the database does not lose the board.
	Heartbeat time.Duration
	// Poll is how often a board that waits for another run's lease asks again.
	Poll time.Duration
}

// Lease defaults: a dead controller frees its boards within a minute; a live one renews six times a minute.
const (
	DefaultLeaseTTL       = 60 * time.Second
	DefaultLeaseHeartbeat = 10 * time.Second
	DefaultLeasePoll      = time.Second
)

func (t LeaseTimes) withDefaults() LeaseTimes {
	if t.TTL <= 0 {
		t.TTL = DefaultLeaseTTL
	}
	if t.Heartbeat <= 0 {
		t.Heartbeat = min(DefaultLeaseHeartbeat, t.TTL/6)
	}
	if t.Poll <= 0 {
		t.Poll = DefaultLeasePoll
	}
	return t
}

// Errors of leases, for errors.Is. A board that fails with either fails alone: the run's other boards go on.
var (
	// ErrBoardLeased: another run held the board for longer than the run would wait (RunOptions.LeaseWait).
	// The error is a *LeaseHeldError naming the holder.
	ErrBoardLeased = errors.New("board is leased by another run")
	// ErrLeaseLost: the run's lease on a board it was measuring ended: it could not be renewed for its time to
	// live (database unreachable) and another run may have taken the board, so the measurement stopped.
	ErrLeaseLost = errors.New("board lease lost")
)

// LeaseHeldError is a board that another run held for as long as the run would wait.
type LeaseHeldError struct {
	Holder protocol.Lease
	Waited time.Duration
}

func (e *LeaseHeldError) Error() string {
	waited := "did not wait"
	if e.Waited > 0 {
		waited = "gave up after waiting " + e.Waited.Round(time.Second).String()
	}
	return fmt.Sprintf("%s is leased by %s, expires %s; %s", e.Holder.Board, holderText(e.Holder, true),
		clockTime(e.Holder.Expires), waited)
}

func (e *LeaseHeldError) Unwrap() error { return ErrBoardLeased }

// holderText names a lease's holder for people: "run 41 (nightly, host ci-3, since 02:00)".
func holderText(l protocol.Lease, pid bool) string {
	var parts []string
	if l.Label != "" {
		parts = append(parts, l.Label)
	}
	if l.Host != "" {
		host := "host " + l.Host
		if pid && l.PID > 0 {
			host += fmt.Sprintf(" pid %d", l.PID)
		}
		parts = append(parts, host)
	}
	parts = append(parts, "since "+clockTime(l.Since))
	return fmt.Sprintf("run %d (%s)", l.RunID, strings.Join(parts, ", "))
}

// clockTime is a time of today as 15:04:05 on this machine's clock, another day's with its date.
func clockTime(t time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == time.Now().Year() && m == time.Now().Month() && d == time.Now().Day() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

// heldLease is a board's lease while the run holds it: a heartbeat renews it until release.
type heldLease struct {
	ctx    context.Context // the board's: cancelled with an ErrLeaseLost cause when the lease is lost
	cancel context.CancelCauseFunc
	leases Leaser // nil: no lease was taken
	board  string
	logf   func(string, ...any)
	stop   chan struct{}
	done   chan struct{}
	// final bounds the release: not cancelled with the run, but releaseGrace after it is, a deadline shared
	// with the run's last writes to the same database (one grace in all, not one each).
	final    context.Context
	endFinal context.CancelFunc
}

// releaseGrace is how long a board's release may wait for the database once the run is interrupted, as the
// store's last writes do: the lease expires by itself if the database does not answer.
const releaseGrace = 5 * time.Second

// takeLease waits until the run holds board's lease, up to opts.LeaseWait, announcing the holder it waits for
// (again whenever the holder changes). While it waits it leaves its place p to the run's other boards and takes
// one again before each try, so a board held by another run never keeps a free one waiting. With no Leaser it
// returns at once and holds nothing.
func takeLease(ctx context.Context, opts RunOptions, board string, ev func(Event), p *place) (*heldLease, error) {
	if opts.Leases == nil {
		return &heldLease{ctx: ctx}, nil
	}
	times := opts.LeaseTimes.withDefaults()
	start := time.Now()
	deadline := start.Add(max(opts.LeaseWait, 0))
	var waitingFor int64
	for {
		holder, ok, err := opts.Leases.AcquireLease(ctx, board, times.TTL)
		if err != nil {
			return nil, fmt.Errorf("take lease of %s: %w", board, err)
		}
		if ok {
			if gone := holder.Replaced; gone != nil {
				why := holder.ReplacedWhy
				if why == "" {
					why = "its process is gone; that run is marked interrupted"
				}
				ev(Event{Stage: StageLease, Msg: fmt.Sprintf("took the lease at once from %s: %s", holderText(*gone, true), why)})
			}
			break
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, &LeaseHeldError{Holder: holder, Waited: time.Since(start)}
		}
		if holder.RunID != waitingFor {
			waitingFor = holder.RunID
			ev(Event{Stage: StageLease, Msg: "waiting for " + holderText(holder, false)})
		}
		p.leave()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(times.Poll, left)):
		}
		if err := p.take(ctx); err != nil {
			return nil, err
		}
	}
	if waitingFor != 0 {
		ev(Event{Stage: StageLease, Msg: fmt.Sprintf("leased after waiting %v", time.Since(start).Round(time.Second))})
	}
	bctx, cancel := context.WithCancelCause(ctx)
	h := &heldLease{ctx: bctx, cancel: cancel, leases: opts.Leases, board: board, logf: opts.Logf,
		stop: make(chan struct{}), done: make(chan struct{})}
	h.final, h.endFinal = outlive.Context(ctx, releaseGrace, errors.New("the database did not answer after the interrupt"))
	go h.heartbeat(times)
	return h, nil
}

// heartbeat renews the lease every times.Heartbeat. When the run no longer holds it, or no renewal has
// succeeded for a whole TTL (another run may take the board now), it cancels the board's work.
func (h *heldLease) heartbeat(times LeaseTimes) {
	defer close(h.done)
	tick := time.NewTicker(times.Heartbeat)
	defer tick.Stop()
	renewed := time.Now()
	for {
		select {
		case <-h.stop:
			return
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		ok, err := h.leases.RenewLease(h.ctx, h.board, times.TTL)
		switch {
		case err == nil && ok:
			renewed = time.Now()
		case err == nil:
			h.cancel(fmt.Errorf("%w: %s: another run took the board after this run's lease expired", ErrLeaseLost, h.board))
			return
		case h.ctx.Err() != nil:
			return
		default:
			h.logf("%s: renew lease: %v", h.board, err)
			if time.Since(renewed) >= times.TTL {
				h.cancel(fmt.Errorf("%w: %s: not renewed for %v: %w", ErrLeaseLost, h.board, times.TTL, err))
				return
			}
		}
	}
}

// lost is the cause of the board's cancellation when the lease was lost, nil otherwise.
func (h *heldLease) lost() error {
	if h.leases == nil {
		return nil
	}
	if cause := context.Cause(h.ctx); errors.Is(cause, ErrLeaseLost) {
		return cause
	}
	return nil
}

// release stops the heartbeat and gives the board back at once, also when the run was interrupted: a run
// waiting for the board must not wait for the lease to expire. A release that fails leaves a lease that
// expires by itself.
func (h *heldLease) release() {
	if h.leases == nil {
		return
	}
	close(h.stop)
	<-h.done
	h.cancel(nil)
	defer h.endFinal()
	ctx, cancel := context.WithTimeout(h.final, releaseGrace)
	defer cancel()
	if err := h.leases.ReleaseLease(ctx, h.board); err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx) // the driver's "context canceled" does not say why
		}
		h.logf("%s: release lease (it expires by itself): %v", h.board, err)
	}
}
