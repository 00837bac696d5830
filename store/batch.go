package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// txWriter is one write transaction of a RunWriter.
type txWriter struct {
	ctx     context.Context
	tx      *sql.Tx
	w       *RunWriter
	created []string // boards whose board_runs row this transaction inserted
}

// exec runs a statement of the write path, prepared once per DB.
func (t *txWriter) exec(query string, args ...any) error {
	st, err := t.w.db.stmt(t.ctx, t.tx, query)
	if err != nil {
		return err
	}
	if _, err := st.ExecContext(t.ctx, args...); err != nil {
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
	for _, b := range t.created {
		if b == board {
			return nil
		}
	}
	if err := t.exec(`INSERT INTO board_runs (run_id, board, status, started) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, board) DO NOTHING`, t.w.id, board, boardRunning, formatTime(t.w.db.now())); err != nil {
		return fmt.Errorf("record board %s: %w", board, err)
	}
	t.created = append(t.created, board)
	return nil
}

// writeTx commits b and extra in one immediate transaction and returns the boards it created rows for.
func (w *RunWriter) writeTx(ctx context.Context, b batch, extra func(*txWriter) error) (created []string, err error) {
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
		return nil, err
	}
	if extra != nil {
		if err := extra(t); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", classify(err))
	}
	return t.created, nil
}

// writeBatch inserts raws, skips and points, then moves the latest pointer of each series they touch.
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
	if len(b.points) == 0 {
		return nil
	}
	// Every row this transaction inserts gets an id above the largest one before it (SQLite allocates
	// max(rowid)+1 and we hold the write lock), which lets one statement move the latest pointers.
	var before int64
	st, err := t.w.db.stmt(t.ctx, t.tx, `SELECT coalesce(max(id), 0) FROM measurements`)
	if err != nil {
		return err
	}
	if err := st.QueryRowContext(t.ctx).Scan(&before); err != nil {
		return fmt.Errorf("read last measurement id: %w", classify(err))
	}
	for len(b.points) > 0 {
		n := min(len(b.points), maxRowsPerInsert)
		if err := t.insertPoints(b.points[:n]); err != nil {
			return err
		}
		b.points = b.points[n:]
	}
	if err := t.exec(upsertLatest, t.w.started, before); err != nil {
		return fmt.Errorf("update latest points: %w", err)
	}
	return nil
}

// maxRowsPerInsert bounds one multi-row INSERT (29 parameters a row; SQLite allows 32766).
const maxRowsPerInsert = 50

// insertPoints inserts points with one statement: far fewer round trips through database/sql than a row at
// a time, which is most of the cost of ingest.
func (t *txWriter) insertPoints(points []boardPoint) error {
	for _, bp := range points {
		if err := t.ensureBoard(bp.board); err != nil {
			return err
		}
	}
	args := make([]any, 0, len(points)*measurementParams)
	for _, bp := range points {
		p := &bp.p
		args = append(args, t.w.id, bp.board, p.Mode, p.Algorithm, p.Op, p.BlockSize, p.KeyBits,
			p.Curve, p.Threads, p.Repeat, p.Engine, p.Driver, p.Count, p.Seconds, p.Timing, p.WallEst,
			p.BytesPerSec, p.OpsPerSec, p.WallS, p.UserS, p.SysS, p.CPUPct, p.SysBusyPct, p.IRQDelta,
			p.Failed, p.Error, jsonList(p.Flags), p.RawID, p.Line)
	}
	if err := t.exec(insertMeasurements(len(points)), args...); err != nil {
		p := points[0]
		return fmt.Errorf("store %d points from %s %s of %s: %w", len(points), p.p.Mode, p.p.Algorithm, p.board,
			err)
	}
	return nil
}

const (
	insertMeasurementsHead = `INSERT INTO measurements (run_id, board, mode, algorithm, op, block_size, key_bits,
	curve, threads, repeat, engine, driver, count, seconds, timing, wall_est_s, bytes_per_sec, ops_per_sec,
	wall_s, user_s, sys_s, cpu_pct, sys_busy_pct, irq_delta, failed, error, flags, raw_id, line) VALUES `
	measurementRow    = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	measurementParams = 29
)

// insertStatements caches the text of the INSERT for n rows.
var insertStatements sync.Map // int -> string

func insertMeasurements(n int) string {
	if s, ok := insertStatements.Load(n); ok {
		return s.(string)
	}
	s := insertMeasurementsHead + strings.TrimSuffix(strings.Repeat(measurementRow+", ", n), ", ")
	insertStatements.Store(n, s)
	return s
}

// upsertLatest points each series the batch measured (the rows with ids above ?2) at its newest row. A pointer
// only moves forward in run start time (then run id), so importing an old run never hides a newer result.
const upsertLatest = `INSERT INTO latest (board, mode, algorithm, op, block_size, key_bits, curve, threads,
		measurement_id, run_id, run_started)
	SELECT board, mode, algorithm, op, block_size, key_bits, curve, threads, max(id), run_id, ?1
	FROM measurements NOT INDEXED WHERE id > ?2 -- the rowid range, not a scan of the series index
	GROUP BY board, mode, algorithm, op, block_size, key_bits, curve, threads
	ON CONFLICT (board, mode, algorithm, op, block_size, key_bits, curve, threads) DO UPDATE SET
		measurement_id = excluded.measurement_id, run_id = excluded.run_id, run_started = excluded.run_started
	WHERE excluded.run_started > latest.run_started
		OR (excluded.run_started = latest.run_started AND excluded.run_id >= latest.run_id)`

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
