package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// DropBoards removes boards' parts of a run that refused them before measuring (an algorithm their openssl
// does not have: a usage error, not a result), and the run itself when no board is left, so that the history
// holds nothing of them. It is called after Finish; dropped reports whether the run went too.
func (w *RunWriter) DropBoards(ctx context.Context, boards []string) (dropped bool, err error) {
	if len(boards) == 0 {
		return false, nil
	}
	tx, err := w.db.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("drop refused boards of run %d: %w", w.id, classify(err))
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, b := range boards {
		claimed, err := claimedSeries(ctx, tx, w.id, b)
		if err != nil {
			return false, fmt.Errorf("drop board %s of run %d: %w", b, w.id, w.db.explainPermission(ctx, err, accessRead))
		}
		for _, table := range []string{"measurements", "skips", "raw_outputs", "latest", "leases", "point_counts",
			"board_runs"} {
			key := b
			if table == "leases" {
				key = protocol.LeaseKey(b, w.host) // local's lease is its host's
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE run_id = ? AND board = ?`, w.id, key); err != nil {
				return false, fmt.Errorf("drop board %s of run %d: %w", b, w.id, w.db.explainPermission(ctx, classify(err), accessWrite))
			}
		}
		if err := repointLatest(ctx, tx, claimed); err != nil {
			return false, fmt.Errorf("drop board %s of run %d: %w", b, w.id, w.db.explainPermission(ctx, err, accessWrite))
		}
	}
	var left int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM board_runs WHERE run_id = ?`, w.id).Scan(&left); err != nil {
		return false, fmt.Errorf("drop refused boards of run %d: %w", w.id, w.db.explainPermission(ctx, classify(err), accessRead))
	}
	if left == 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, w.id); err != nil {
			return false, fmt.Errorf("drop run %d: %w", w.id, w.db.explainPermission(ctx, classify(err), accessWrite))
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("drop refused boards of run %d: %w", w.id, w.db.explainPermission(ctx, classify(err), accessWrite))
	}
	return left == 0, nil
}

// claimedSeries are the series whose latest row names the board's part of run id.
func claimedSeries(ctx context.Context, tx *sqlTx, id int64, board string) ([]series, error) {
	rows, err := tx.QueryContext(ctx, `SELECT mode, algorithm, op, block_size, key_bits, curve, threads FROM latest
		WHERE run_id = ? AND board = ?`, id, board)
	if err != nil {
		return nil, fmt.Errorf("read latest points: %w", classify(err))
	}
	defer rows.Close()
	var ss []series
	for rows.Next() {
		k := series{board: board}
		if err := rows.Scan(&k.mode, &k.algorithm, &k.op, &k.blockSize, &k.keyBits, &k.curve, &k.threads); err != nil {
			return nil, fmt.Errorf("read latest points: %w", err)
		}
		ss = append(ss, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read latest points: %w", classify(err))
	}
	return ss, nil
}

// repointLatest gives each series whose latest row went with a dropped board back to the newest run left that
// measured it (walking the board's runs newest first, a seek in measurements_run_series each), so that latest
// stays what a search of every point would give; a series no run measures any more has no row. Dropped boards
// have seldom measured anything, so this is seldom more than the query of claimedSeries.
func repointLatest(ctx context.Context, tx *sqlTx, ss []series) error {
	for _, k := range ss {
		var id int64
		var started string
		err := tx.QueryRowContext(ctx, `SELECT r.id, r.started FROM board_runs b CROSS JOIN runs r ON r.id = b.run_id
			WHERE b.board = ? AND r.status <> ? AND EXISTS (SELECT 1 FROM measurements m WHERE m.run_id = b.run_id
				AND m.board = b.board AND m.mode = ? AND m.algorithm = ? AND m.op = ? AND m.block_size = ?
				AND m.key_bits = ? AND m.curve = ? AND m.threads = ?)
			ORDER BY r.started DESC, r.id DESC LIMIT 1`, k.board, protocol.StatusReference, k.mode, k.algorithm, k.op,
			k.blockSize, k.keyBits, k.curve, k.threads).Scan(&id, &started)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("find the latest run of a series: %w", classify(err))
		}
		if _, err := tx.ExecContext(ctx, upsertLatest(1), k.board, k.mode, k.algorithm, k.op, k.blockSize, k.keyBits,
			k.curve, k.threads, id, started); err != nil {
			return fmt.Errorf("update latest points: %w", classify(err))
		}
	}
	return nil
}
