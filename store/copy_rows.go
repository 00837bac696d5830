package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The rows of one run, read from the source as stored and written into the destination's transaction of
// copyOneRun. Text columns holding JSON (facts, commands, reasons) are copied as they are, not decoded and
// encoded again, so a copy is exact; points go through the writer's own insert, which also keeps the latest
// table right. Rows stream from the source, so a run of any size copies in bounded memory.

// copyBoardRuns copies the board runs of run id, with their status, facts and validity, as stored.
func copyBoardRuns(ctx context.Context, src *DB, t *txWriter, id int64) error {
	rows, err := src.db.QueryContext(ctx, `SELECT board, status, error, facts, started, finished, validity,
			validity_reasons, kernel FROM board_runs WHERE run_id = ? ORDER BY board`, id)
	if err != nil {
		return fmt.Errorf("read board runs from %s: %w", src.Path, classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var board, status, cause, started, validity string
		var facts, finished, reasons, kernel sql.NullString
		if err := rows.Scan(&board, &status, &cause, &facts, &started, &finished, &validity, &reasons, &kernel); err != nil {
			return fmt.Errorf("read board runs from %s: %w", src.Path, err)
		}
		if err := t.exec(`INSERT INTO board_runs (run_id, board, status, error, facts, started, finished, validity,
				validity_reasons, kernel) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, t.w.id, board, status, cause, facts, started,
			finished, validity, reasons, kernel); err != nil {
			return fmt.Errorf("write board %s: %w", board, err)
		}
		t.w.boards[board] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read board runs from %s: %w", src.Path, classify(err))
	}
	return nil
}

// copyRaws copies the raw tool outputs of run id.
func copyRaws(ctx context.Context, src *DB, t *txWriter, id int64) error {
	rows, err := src.db.QueryContext(ctx, `SELECT board, raw_id, command, env, stdout, stderr, exit
		FROM raw_outputs WHERE run_id = ? ORDER BY board, raw_id`, id)
	if err != nil {
		return fmt.Errorf("read raw outputs from %s: %w", src.Path, classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var board, command, stdout, stderr string
		var rawID, exit int
		var env sql.NullString
		if err := rows.Scan(&board, &rawID, &command, &env, &stdout, &stderr, &exit); err != nil {
			return fmt.Errorf("read raw outputs from %s: %w", src.Path, err)
		}
		if err := t.exec(`INSERT INTO raw_outputs (run_id, board, raw_id, command, env, stdout, stderr, exit)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, t.w.id, board, rawID, command, env, stdout, stderr, exit); err != nil {
			return fmt.Errorf("write raw output %d of %s: %w", rawID, board, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read raw outputs from %s: %w", src.Path, classify(err))
	}
	return nil
}

// copySkips copies what run id did not measure and why, in the order it was stored.
func copySkips(ctx context.Context, src *DB, t *txWriter, id int64) error {
	rows, err := src.db.QueryContext(ctx, `SELECT board, mode, algorithm, reason FROM skips WHERE run_id = ?
		ORDER BY id`, id)
	if err != nil {
		return fmt.Errorf("read skips from %s: %w", src.Path, classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var board, mode, alg, reason string
		if err := rows.Scan(&board, &mode, &alg, &reason); err != nil {
			return fmt.Errorf("read skips from %s: %w", src.Path, err)
		}
		if err := t.exec(`INSERT INTO skips (run_id, board, mode, algorithm, reason) VALUES (?, ?, ?, ?, ?)`,
			t.w.id, board, mode, alg, reason); err != nil {
			return fmt.Errorf("write skip of %s: %w", board, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read skips from %s: %w", src.Path, classify(err))
	}
	return nil
}

// copyPoints copies the points of run id in the order they arrived, a batch at a time, calling stored after
// each batch.
func copyPoints(ctx context.Context, src *DB, t *txWriter, id int64, stored func(points int)) error {
	rows, err := src.db.QueryContext(ctx, `SELECT `+measurementCols+fromMeasurements+` WHERE m.run_id = ?
		ORDER BY m.id`, id)
	if err != nil {
		return fmt.Errorf("read points from %s: %w", src.Path, classify(err))
	}
	defer rows.Close()
	batch := make([]boardPoint, 0, maxRowsPerInsert)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := t.insertPoints(batch); err != nil {
			return err
		}
		// insertPoints looks for new series in a slice per transaction, which suits the writer's small ones;
		// this transaction holds a whole run, so keep what it claimed in the run's map instead.
		for _, k := range t.series {
			t.w.series[k] = true
		}
		t.series = t.series[:0]
		stored(len(batch))
		batch = batch[:0]
		return nil
	}
	for rows.Next() {
		m, err := scanMeasurement(rows)
		if err != nil {
			return fmt.Errorf("read points from %s: %w", src.Path, err)
		}
		batch = append(batch, boardPoint{m.Board, m.Point})
		if len(batch) == maxRowsPerInsert {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read points from %s: %w", src.Path, classify(err))
	}
	return flush()
}
