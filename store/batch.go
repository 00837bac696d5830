package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// txWriter is one write transaction of a RunWriter.
type txWriter struct {
	ctx     context.Context
	tx      *sqlTx
	w       *RunWriter
	created []string // boards whose board_runs row this transaction inserted
	series  []series // series this transaction pointed at the run for the first time
}

// exec runs a statement of the write path, prepared once per DB.
func (t *txWriter) exec(query string, args ...any) error {
	st, err := t.w.db.stmt(t.ctx, t.tx, query)
	if err != nil {
		return err
	}
	if _, err := st.ExecContext(t.ctx, t.w.db.db.args(args)...); err != nil {
		return classify(err)
	}
	return nil
}

// ensureBoard inserts the board's row the first time the board is seen, so results never wait for
// BoardStarted and a board that only ever failed still shows up.
func (t *txWriter) ensureBoard(board string) error {
	if board == "" {
		return fmt.Errorf("empty board name")
	}
	if t.w.boards[board] {
		return nil
	}
	if slices.Contains(t.created, board) {
		return nil
	}
	if err := t.exec(`INSERT INTO board_runs (run_id, board, status, started) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, board) DO NOTHING`, t.w.id, board, protocol.StatusRunning, formatTime(t.w.db.now())); err != nil {
		return fmt.Errorf("record board %s: %w", board, err)
	}
	t.created = append(t.created, board)
	return nil
}

// writeTx commits b and extra in one immediate transaction and returns what it recorded besides results.
// A transaction PostgreSQL aborted for a concurrent one's sake (deadlock, serialization failure) runs again.
func (w *RunWriter) writeTx(ctx context.Context, b batch, extra func(*txWriter) error) (t *txWriter, err error) {
	err = w.db.retryOutage(ctx, func() error {
		return retry(ctx, func() error {
			t, err = w.writeTxOnce(ctx, b, extra)
			return err
		})
	})
	return t, err
}

func (w *RunWriter) writeTxOnce(ctx context.Context, b batch, extra func(*txWriter) error) (_ *txWriter, err error) {
	tx, err := w.db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", classify(err))
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	t := &txWriter{ctx: ctx, tx: tx, w: w}
	if err := t.writeBatch(b); err != nil {
		return nil, w.db.explainPermission(ctx, err, accessWrite)
	}
	if extra != nil {
		if err := extra(t); err != nil {
			return nil, w.db.explainPermission(ctx, err, accessWrite)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, &commitError{classify(err)}
	}
	return t, nil
}

// writeBatch inserts raws, skips and points, and claims the latest pointer of the series new to this run.
func (t *txWriter) writeBatch(b batch) error {
	for _, r := range b.raws {
		if err := t.ensureBoard(r.board); err != nil {
			return err
		}
		cmd, err := json.Marshal(r.r.Command)
		if err != nil {
			return fmt.Errorf("encode raw %d command: %w", r.r.ID, err)
		}
		if err := t.exec(`INSERT INTO raw_outputs (run_id, board, raw_id, command, env, stdout, stderr, exit)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, t.w.id, r.board, r.r.ID, string(cmd), jsonList(r.r.Env),
			r.r.Stdout, r.r.Stderr, r.r.Exit); err != nil {
			return fmt.Errorf("store raw output %d of %s: %w", r.r.ID, r.board, err)
		}
	}
	for _, s := range b.skips {
		if err := t.ensureBoard(s.board); err != nil {
			return err
		}
		if err := t.exec(`INSERT INTO skips (run_id, board, mode, algorithm, reason) VALUES (?, ?, ?, ?, ?)`,
			t.w.id, s.board, s.s.Mode, s.s.Algorithm, s.s.Reason); err != nil {
			return fmt.Errorf("store skip of %s: %w", s.board, err)
		}
	}
	chunk := maxRowsPerInsert
	if t.tx.copies() {
		chunk = len(b.points) // one COPY for the whole batch
	}
	for len(b.points) > 0 {
		n := min(len(b.points), chunk)
		if err := t.insertPoints(b.points[:n]); err != nil {
			return err
		}
		b.points = b.points[n:]
	}
	return nil
}

// maxRowsPerInsert bounds one multi-row INSERT (a parameter per column and row; SQLite allows 32766).
const maxRowsPerInsert = 50

// insertPoints stores points with one statement — a COPY on PostgreSQL (copyPoints), a multi-row INSERT
// otherwise: far fewer round trips through database/sql than a row at a time, which is most of the cost of
// ingest — and claims the latest pointer of the series new to this run.
func (t *txWriter) insertPoints(points []boardPoint) error {
	for _, bp := range points {
		if err := t.ensureBoard(bp.board); err != nil {
			return err
		}
	}
	var fresh []series
	for _, bp := range points {
		if k := seriesOf(bp.board, &bp.p); !t.w.series[k] && !slices.Contains(t.series, k) &&
			!slices.Contains(fresh, k) {
			fresh = append(fresh, k)
		}
	}
	var err error
	if t.tx.copies() {
		err = t.copyPoints(points)
	} else {
		args := make([]any, 0, len(points)*len(measurementColumns))
		for i := range points {
			args = appendMeasurementValues(args, t.w, &points[i])
		}
		err = t.exec(insertMeasurements(len(points)), args...)
	}
	if err != nil {
		p := points[0]
		return fmt.Errorf("store %d points from %s %s of %s: %w", len(points), p.p.Mode, p.p.Algorithm, p.board,
			err)
	}
	if err := t.countPoints(points); err != nil {
		return err
	}
	if t.w.reference {
		return nil
	}
	if err := t.pointLatest(fresh); err != nil {
		return err
	}
	t.series = append(t.series, fresh...)
	return nil
}

// multiRowSQL is head, then n copies of row separated by commas, then tail: one statement for a whole batch.
// Building it costs far less than the statement itself, which DB.stmt prepares once per text.
func multiRowSQL(head, row, tail string, n int) string {
	var b strings.Builder
	b.Grow(len(head) + n*(len(row)+2) + len(tail))
	b.WriteString(head)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	b.WriteString(tail)
	return b.String()
}

// jsonList encodes a list as JSON, or NULL when it is empty.
func jsonList(v []string) any {
	if len(v) == 0 {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil { // a []string always encodes
		return nil
	}
	return string(b)
}
