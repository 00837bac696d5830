package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Board leases keep two runs off one board. A lease is a row of the leases table: taken with one atomic INSERT …
// ON CONFLICT … DO UPDATE … WHERE (the common subset of SQLite and PostgreSQL), renewed by the holder's
// heartbeat, deleted when the holder is done. A holder that dies stops renewing: once its expires has passed, the
// next run that asks takes the board over. Whether a lease has expired is judged by one clock, leaseNow, whatever
// the clocks of the controllers say.

// acquireTries bounds how often AcquireLease looks again when the holder it was refused by has gone by the
// time it reads the row: a release between the INSERT and the SELECT.
const acquireTries = 3

// AcquireLease takes req.Board for the run req.RunID (with req's Label, Host and PID, shown to runs that wait)
// for ttl, when nobody holds it, its holder's lease has expired, that run holds it already, or its holder
// holds nothing any more (holderEnded: its process is gone, and its run is then marked interrupted, or its run
// has ended or is not in the database; Replaced and ReplacedWhy then say so). It returns the lease as it now is and whether it is req's: false means another run holds the
// board, and the lease says who.
func (db *DB) AcquireLease(ctx context.Context, req protocol.Lease, ttl time.Duration) (protocol.Lease, bool, error) {
	if req.Board == "" || ttl <= 0 {
		return protocol.Lease{}, false, fmt.Errorf("take lease: want a board and a positive time to live, have %q, %v", req.Board, ttl)
	}
	for try := 0; ; try++ {
		now, err := db.leaseNow(ctx)
		if err != nil {
			return protocol.Lease{}, false, fmt.Errorf("take lease of %s in %s: %w", req.Board, db.Path, err)
		}
		l := req
		l.Since, l.Heartbeat, l.Expires, l.Expired = now, now, now.Add(ttl), false
		res, err := db.db.ExecContext(ctx, `INSERT INTO leases (board, run_id, label, host, pid, pid_space, since,
				heartbeat, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (board) DO UPDATE SET run_id = excluded.run_id, label = excluded.label, host = excluded.host,
				pid = excluded.pid, pid_space = excluded.pid_space, heartbeat = excluded.heartbeat,
				expires = excluded.expires,
				since = CASE WHEN leases.run_id = excluded.run_id THEN leases.since ELSE excluded.since END
			WHERE leases.expires <= excluded.heartbeat OR leases.run_id = excluded.run_id`,
			l.Board, l.RunID, l.Label, l.Host, l.PID, l.PIDSpace, formatTime(l.Since), formatTime(l.Heartbeat),
			formatTime(l.Expires))
		if err != nil {
			return protocol.Lease{}, false, fmt.Errorf("take lease of %s in %s: %w", req.Board, db.Path, classify(err))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return protocol.Lease{}, false, fmt.Errorf("take lease of %s in %s: %w", req.Board, db.Path, err)
		}
		if n == 1 {
			return l, true, nil
		}
		holder, err := db.lease(ctx, req.Board, now)
		if errors.Is(err, ErrNotFound) && try+1 < acquireTries {
			continue // released just now: ask again
		}
		if err != nil {
			return protocol.Lease{}, false, fmt.Errorf("take lease of %s: %w", req.Board, err)
		}
		why, err := db.holderEnded(ctx, holder, l)
		if err != nil {
			return protocol.Lease{}, false, fmt.Errorf("take lease of %s: %w", req.Board, err)
		}
		if why != "" {
			taken, err := db.takeOverGone(ctx, l, holder)
			if err != nil {
				return protocol.Lease{}, false, fmt.Errorf("take lease of %s from run %d (%s): %w",
					req.Board, holder.RunID, why, err)
			}
			if taken {
				l.Replaced, l.ReplacedWhy = &holder, why
				return l, true, nil
			}
			if try+1 < acquireTries {
				continue // the row changed since it was read: ask again
			}
		}
		return holder, false, nil
	}
}

// RenewLease is the holder's heartbeat: it moves the lease's expiry to ttl from now. It returns false when
// runID no longer holds board: it was released, or it expired and another run took the board. A lease that
// expired but that nobody took is renewed: its run never lost the board.
func (db *DB) RenewLease(ctx context.Context, board string, runID int64, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		return false, fmt.Errorf("renew lease of %s: want a positive time to live, have %v", board, ttl)
	}
	now, err := db.leaseNow(ctx)
	if err != nil {
		return false, fmt.Errorf("renew lease of %s in %s: %w", board, db.Path, err)
	}
	res, err := db.db.ExecContext(ctx, `UPDATE leases SET heartbeat = ?, expires = ? WHERE board = ? AND run_id = ?`,
		formatTime(now), formatTime(now.Add(ttl)), board, runID)
	if err != nil {
		return false, fmt.Errorf("renew lease of %s in %s: %w", board, db.Path, classify(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("renew lease of %s in %s: %w", board, db.Path, err)
	}
	return n == 1, nil
}

// ReleaseLease gives board back if runID holds it; releasing a lease the run does not hold is no error (it
// expired and was taken, or was never taken).
func (db *DB) ReleaseLease(ctx context.Context, board string, runID int64) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM leases WHERE board = ? AND run_id = ?`, board, runID); err != nil {
		return fmt.Errorf("release lease of %s in %s: %w", board, db.Path, classify(err))
	}
	return nil
}

// releaseRunLeases gives back every board runID still holds: a run that ends holds none.
func (t *txWriter) releaseRunLeases(runID int64) error {
	return t.exec(`DELETE FROM leases WHERE run_id = ?`, runID)
}

// Leases lists the leases in the database by board, expired ones included (their holder stopped renewing
// them; the next run that wants the board takes it), with Expired set by leaseNow's clock.
func (db *DB) Leases(ctx context.Context) ([]protocol.Lease, error) {
	now, err := db.leaseNow(ctx)
	if err != nil {
		return nil, fmt.Errorf("list leases in %s: %w", db.Path, err)
	}
	rows, err := db.db.QueryContext(ctx, `SELECT `+leaseColumns+` FROM leases ORDER BY board`)
	if err != nil {
		return nil, fmt.Errorf("list leases in %s: %w", db.Path, classify(err))
	}
	defer rows.Close()
	var ls []protocol.Lease
	for rows.Next() {
		l, err := scanLease(rows, now)
		if err != nil {
			return nil, fmt.Errorf("list leases in %s: %w", db.Path, err)
		}
		ls = append(ls, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list leases in %s: %w", db.Path, classify(err))
	}
	return ls, nil
}

// lease reads board's lease; none wraps ErrNotFound.
func (db *DB) lease(ctx context.Context, board string, now time.Time) (protocol.Lease, error) {
	l, err := scanLease(db.db.QueryRowContext(ctx, `SELECT `+leaseColumns+` FROM leases WHERE board = ?`, board), now)
	if errors.Is(err, sql.ErrNoRows) {
		return l, fmt.Errorf("no lease of %s in %s: %w", board, db.Path, ErrNotFound)
	}
	if err != nil {
		return l, fmt.Errorf("read lease of %s in %s: %w", board, db.Path, classify(err))
	}
	return l, nil
}

const leaseColumns = `board, run_id, label, host, pid, pid_space, since, heartbeat, expires`

func scanLease(row interface{ Scan(...any) error }, now time.Time) (protocol.Lease, error) {
	var l protocol.Lease
	var since, heartbeat, expires sql.NullString
	if err := row.Scan(&l.Board, &l.RunID, &l.Label, &l.Host, &l.PID, &l.PIDSpace, &since, &heartbeat, &expires); err != nil {
		return l, err
	}
	for _, c := range []struct {
		name string
		text sql.NullString
		t    *time.Time
	}{{"since", since, &l.Since}, {"heartbeat", heartbeat, &l.Heartbeat}, {"expires", expires, &l.Expires}} {
		t, err := parseTime(c.text)
		if err != nil {
			return l, &leaseRowError{board: l.Board, runID: l.RunID, column: c.name, value: c.text.String}
		}
		*c.t = t
	}
	l.Expired = !l.Expires.After(now)
	return l, nil
}

// leaseRowError is a lease row whose times fleet cannot read: fleet writes every time in timeLayout, whose
// fixed width is what the expiry comparisons in SQL rely on, so another format ("…T10:20:41Z") was written by
// hand or by another tool. Reading it in another layout would let SQL and Go judge the lease differently;
// instead the row is named, with the way out.
type leaseRowError struct {
	board  string
	runID  int64
	column string
	value  string
}

func (e *leaseRowError) Error() string {
	return fmt.Sprintf("the lease of %s (run %d) has %s %s, not a time as fleet writes them (%s): it was not "+
		"written by fleet; once no run uses %s, delete the row (DELETE FROM leases WHERE board = '%s')",
		e.board, e.runID, e.column, quoteShort(e.value), timeLayout, e.board, strings.ReplaceAll(e.board, "'", "''"))
}

// quoteShort quotes s as Go does, cut to its first 60 bytes: a hand-written value may be anything, of any size.
func quoteShort(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return strconv.Quote(s)
}

// leaseNow is the clock leases are judged by. A SQLite database is a file on one machine, so the controllers
// sharing it share that machine's clock: DB.Now (which tests set). Controllers sharing a PostgreSQL server may
// run on machines whose clocks disagree; there it is the server's now(), so that they agree on when a lease
// expires whatever their own clocks say (DB.Now does not apply to leases there).
func (db *DB) leaseNow(ctx context.Context) (time.Time, error) {
	if db.db.dialect != dialectPostgres {
		return db.now(), nil
	}
	var now time.Time
	if err := db.db.QueryRowContext(ctx, `SELECT now()`).Scan(&now); err != nil {
		return time.Time{}, fmt.Errorf("read the server's clock: %w", classify(err))
	}
	return now.UTC(), nil
}

// AcquireLease takes board for this run (fleet.Leaser): see DB.AcquireLease. The run's label and host, and
// this process's id, are shown to runs that wait for the board; with the process's space (processSpace) a run
// of this machine can tell when this process is gone. The lease is kept under protocol.LeaseKey
// (local's is its host's: local@ci-3), and the holder returned names the board as asked: "local is leased by
// run 41 (nightly, host ci-3 …)", the host being the holder's, which for local is this run's host too.
func (w *RunWriter) AcquireLease(ctx context.Context, board string, ttl time.Duration) (protocol.Lease, bool, error) {
	l, ok, err := w.db.AcquireLease(ctx, protocol.Lease{Board: protocol.LeaseKey(board, w.host), RunID: w.id, Label: w.label,
		Host: w.host, PID: os.Getpid(), PIDSpace: processSpace()}, ttl)
	if err == nil {
		l.Board = board
	}
	return l, ok, err
}

// RenewLease is this run's heartbeat on board's lease: see DB.RenewLease.
func (w *RunWriter) RenewLease(ctx context.Context, board string, ttl time.Duration) (bool, error) {
	return w.db.RenewLease(ctx, protocol.LeaseKey(board, w.host), w.id, ttl)
}

// ReleaseLease gives board back: see DB.ReleaseLease.
func (w *RunWriter) ReleaseLease(ctx context.Context, board string) error {
	return w.db.ReleaseLease(ctx, protocol.LeaseKey(board, w.host), w.id)
}
