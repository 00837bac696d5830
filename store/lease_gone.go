package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// A controller killed outright (SIGKILL, an OOM kill, a SIGPIPE it did not handle) stops renewing its leases
// and leaves its run "running". Waiting out the lease is right when the holder may be alive elsewhere, but on
// the same machine the asker can see that no such process exists: the board is taken at once, and the dead
// run marked interrupted so that it no longer shows as running. A PID means one process only within one boot
// and one PID namespace (processSpace); a PID reused by another process looks alive, and the lease then
// expires by itself as before. A holder of another space (another machine, container, boot, or a row an older
// fleet wrote) is never judged.

// A run's end releases its leases in the transaction that ends it, so a lease naming a run that has ended (or
// that is not in the database at all: a row left by a crash between a copy and a prune, or written by hand)
// protects nothing: waiting out its expiry would only keep the board idle. Unlike a gone process, this holds
// for a holder of any machine: the run's row is in the database every controller shares.

// holderEnded says, in words, why holder holds nothing any more: its process is gone (holderGone), or its run
// has ended or is not in the database. Empty means it may still be measuring and must be waited for.
func (db *DB) holderEnded(ctx context.Context, holder, asker protocol.Lease) (string, error) {
	if holder.Expired || holder.RunID == asker.RunID {
		return "", nil
	}
	if holderGone(holder, asker) {
		return "its process is gone; that run is marked interrupted", nil
	}
	var status string
	err := db.db.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, holder.RunID).Scan(&status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "that run is not in the database", nil
	case err != nil:
		return "", fmt.Errorf("read the status of run %d, which holds %s: %w", holder.RunID, holder.Board, classify(err))
	case status != string(protocol.StatusRunning):
		return fmt.Sprintf("that run has ended (%s): a finished run holds nothing", status), nil
	}
	return "", nil
}

// holderGone reports a holder, not expired, of the asker's own process space whose PID no process has.
func holderGone(holder, asker protocol.Lease) bool {
	return !holder.Expired && holder.PID > 0 && holder.PIDSpace != "" && holder.PIDSpace == asker.PIDSpace &&
		holder.RunID != asker.RunID && processGone(holder.PID)
}

// takeOverGone gives l's board to l's run in place of holder, if the row is still holder's, and in the same
// transaction ends what the dead holder left: its run and its unfinished boards are marked interrupted, and
// every other lease it held (same run, PID and space) is deleted. false means the row was no longer holder's.
func (db *DB) takeOverGone(ctx context.Context, l, holder protocol.Lease) (bool, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return false, classify(err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE leases SET run_id = ?, label = ?, host = ?, pid = ?, pid_space = ?,
			since = ?, heartbeat = ?, expires = ?
		WHERE board = ? AND run_id = ? AND pid = ? AND pid_space = ?`,
		l.RunID, l.Label, l.Host, l.PID, l.PIDSpace, formatTime(l.Since), formatTime(l.Heartbeat), formatTime(l.Expires),
		l.Board, holder.RunID, holder.PID, holder.PIDSpace)
	if err != nil {
		return false, classify(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	cause := fmt.Sprintf("interrupted: its controller (pid %d) was gone when run %d took %s", holder.PID, l.RunID, l.Board)
	now := formatTime(db.now())
	for _, st := range []struct {
		query string
		args  []any
	}{
		{`DELETE FROM leases WHERE run_id = ? AND pid = ? AND pid_space = ?`,
			[]any{holder.RunID, holder.PID, holder.PIDSpace}},
		{`UPDATE board_runs SET status = ?, error = ?, finished = ? WHERE run_id = ? AND status = ?`,
			[]any{protocol.StatusInterrupted, cause, now, holder.RunID, protocol.StatusRunning}},
		{`UPDATE runs SET status = ?, finished = ? WHERE id = ? AND status = ?`,
			[]any{protocol.StatusInterrupted, now, holder.RunID, protocol.StatusRunning}},
	} {
		if _, err := tx.ExecContext(ctx, st.query, st.args...); err != nil {
			return false, classify(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, classify(err)
	}
	return true, nil
}
