package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// txWriter is one write transaction of a RunWriter.
type txWriter struct {
	ctx     context.Context
	tx      *sql.Tx
	w       *RunWriter
	created []string // boards whose board_runs row this transaction inserted
}

func (t *txWriter) exec(query string, args ...any) error {
	if _, err := t.tx.ExecContext(t.ctx, query, args...); err != nil {
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
	ins, err := t.tx.PrepareContext(t.ctx, insertMeasurement)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", classify(err))
	}
	defer ins.Close()
	type series struct {
		board, mode, algorithm, op, curve string
		blockSize, keyBits, threads       int
	}
	newest := map[series]int64{}
	var order []series // deterministic upsert order
	for _, bp := range b.points {
		if err := t.ensureBoard(bp.board); err != nil {
			return err
		}
		p := &bp.p
		res, err := ins.ExecContext(t.ctx, t.w.id, bp.board, p.Mode, p.Algorithm, p.Op, p.BlockSize, p.KeyBits,
			p.Curve, p.Threads, p.Repeat, p.Engine, p.Driver, p.Count, p.Seconds, p.Timing, p.WallEst,
			p.BytesPerSec, p.OpsPerSec, p.WallS, p.UserS, p.SysS, p.CPUPct, p.SysBusyPct, p.IRQDelta,
			p.Failed, p.Error, jsonList(p.Flags), p.RawID, p.Line)
		if err != nil {
			return fmt.Errorf("store point %s %s of %s: %w", p.Mode, p.Algorithm, bp.board, classify(err))
		}
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("store point %s %s of %s: %w", p.Mode, p.Algorithm, bp.board, err)
		}
		k := series{bp.board, p.Mode, p.Algorithm, p.Op, p.Curve, p.BlockSize, p.KeyBits, p.Threads}
		if _, ok := newest[k]; !ok {
			order = append(order, k)
		}
		newest[k] = id
	}
	up, err := t.tx.PrepareContext(t.ctx, upsertLatest)
	if err != nil {
		return fmt.Errorf("prepare latest: %w", classify(err))
	}
	defer up.Close()
	for _, k := range order {
		if _, err := up.ExecContext(t.ctx, k.board, k.mode, k.algorithm, k.op, k.blockSize, k.keyBits, k.curve,
			k.threads, newest[k], t.w.id, t.w.started); err != nil {
			return fmt.Errorf("update latest %s %s of %s: %w", k.mode, k.algorithm, k.board, classify(err))
		}
	}
	return nil
}

const insertMeasurement = `INSERT INTO measurements (run_id, board, mode, algorithm, op, block_size, key_bits,
	curve, threads, repeat, engine, driver, count, seconds, timing, wall_est_s, bytes_per_sec, ops_per_sec,
	wall_s, user_s, sys_s, cpu_pct, sys_busy_pct, irq_delta, failed, error, flags, raw_id, line)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// upsertLatest moves a series' pointer only forward in run start time (then run id), so importing an old
// run never hides a newer result.
const upsertLatest = `INSERT INTO latest (board, mode, algorithm, op, block_size, key_bits, curve, threads,
	measurement_id, run_id, run_started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
