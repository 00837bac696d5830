package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fleetlab/fleet/internal/outlive"
	"github.com/fleetlab/fleet/protocol"
)

// FinalWriteGrace bounds how long a run's writes may still wait for the database once the run's context is
// cancelled (Ctrl-C): long enough to store the last batch and the run's end from a database that answers, short
// enough that a frozen server or a dead network path does not keep an interrupted fleet from exiting.
const FinalWriteGrace = 5 * time.Second

// DefaultOutageRetry is how long a run's write is tried again while the database cannot be reached (a server
// restarting, a connection cut by a failover): a restart of a few seconds must not end a run of hours.
const DefaultOutageRetry = 30 * time.Second

// ErrWritesStuck is wrapped when a run's writes were given up FinalWriteGrace after an interrupt because the
// database did not answer: what was not yet stored is lost, and the run stays incomplete (running).
var ErrWritesStuck = errors.New("the database did not answer after the interrupt")

// Outlive returns a context that is not cancelled with ctx, so that an interrupted run still stores what it
// measured and its end, but is cancelled grace after ctx is, with ErrWritesStuck as its cause. Every write
// derived from one Outlive context shares that one deadline. Call cancel when done with it.
func Outlive(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	return outlive.Context(ctx, grace, fmt.Errorf("%w within %v: what was not yet stored is lost and the run stays incomplete (running)",
		ErrWritesStuck, grace))
}

// stuckError is a write given up because its context ended: it reads as the context's cause (the driver's
// "context canceled" says nothing to a user) and wraps both.
type stuckError struct{ cause, err error }

func (e *stuckError) Error() string   { return e.cause.Error() }
func (e *stuckError) Unwrap() []error { return []error{e.cause, e.err} }

// commitError marks a failure of COMMIT itself: the transaction may or may not have been committed, so it is
// never tried again (the points would be stored twice).
type commitError struct{ err error }

func (e *commitError) Error() string { return "commit: " + e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// outage reports whether err says the database could not be reached or the connection was lost before the
// transaction committed: a write that can be tried again on a new connection.
func outage(err error) bool {
	var ce *commitError
	if err == nil || errors.As(err, &ce) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// connection exceptions; admin, crash or cannot-connect-now shutdown (a server stopping or starting)
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var conn *pgconn.ConnectError
	var ne *net.OpError
	return errors.As(err, &conn) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || pgconn.SafeToRetry(err)
}

// outageRetry is db.OutageRetry, or DefaultOutageRetry when not set.
func (db *DB) outageRetry() time.Duration {
	if db.OutageRetry > 0 {
		return db.OutageRetry
	}
	return DefaultOutageRetry
}

// retryOutage runs the transaction f again while the database cannot be reached, for up to db.OutageRetry,
// waiting a little longer each time; ctx's end (an interrupt's grace) stops it at once.
func (db *DB) retryOutage(ctx context.Context, f func() error) error {
	start := time.Now()
	wait := 100 * time.Millisecond
	for {
		err := f()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return &stuckError{context.Cause(ctx), err}
		}
		if !outage(err) {
			return err
		}
		if took := time.Since(start); took >= db.outageRetry() {
			return fmt.Errorf("database unreachable, tried again for %v: %w", took.Round(time.Second), err)
		}
		select {
		case <-ctx.Done():
			return &stuckError{context.Cause(ctx), err}
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// failRunLocked ends a run whose write failed: running boards are marked failed with the write's error, the
// run's leases are released and the run is failed (or interrupted), so that it neither shows as in progress nor
// holds its boards until the leases expire. It is one more try at a database that may be back.
func (w *RunWriter) failRunLocked(status protocol.Status) error {
	if status != protocol.StatusInterrupted {
		status = protocol.StatusFailed
	}
	cause := "the run's results could not be stored: " + w.err.Error()
	wctx, end := w.writeCtx()
	defer end()
	_, err := w.writeTx(wctx, batch{}, func(t *txWriter) error {
		now := formatTime(w.db.now())
		if err := t.exec(`UPDATE board_runs SET status = ?, error = ?, finished = ? WHERE run_id = ? AND status = ?`,
			protocol.StatusFailed, cause, now, w.id, protocol.StatusRunning); err != nil {
			return err
		}
		if err := t.releaseRunLeases(w.id); err != nil {
			return err
		}
		return t.exec(`UPDATE runs SET status = ?, finished = ? WHERE id = ?`, status, now, w.id)
	})
	return err
}
