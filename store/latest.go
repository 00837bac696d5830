package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// series names what is measured over time: a board, mode, algorithm, operation, size, key size, curve and
// thread count. Repeats and runs are points of one series.
type series struct {
	board, mode, algorithm, op, curve string
	blockSize, keyBits, threads       int
}

func seriesOf(board string, p *protocol.Point) series {
	return series{board, p.Mode, p.Algorithm, p.Op, p.Curve, p.BlockSize, p.KeyBits, p.Threads}
}

// The latest table maps every series to the newest run that measured it, so "latest per series" reads ~1000
// rows instead of grouping a million. A run claims a series once, with its first point of it: the writer
// remembers what it claimed, which keeps the upserts to one per series and run, not one per point.

// maxLatestRows bounds one multi-row upsert (10 parameters a row).
const maxLatestRows = 100

// pointLatest points each series at this run unless a newer run (by start time, then id) already has it, so
// importing an old run never hides a newer result. The rows are upserted in key order: writers that claim
// the same series then lock their rows in the same order and cannot deadlock (PostgreSQL locks row by row;
// SQLite's one writer at a time never could).
func (t *txWriter) pointLatest(ss []series) error {
	slices.SortFunc(ss, compareSeries)
	for len(ss) > 0 {
		n := min(len(ss), maxLatestRows)
		args := make([]any, 0, n*10)
		for _, k := range ss[:n] {
			args = append(args, k.board, k.mode, k.algorithm, k.op, k.blockSize, k.keyBits, k.curve, k.threads,
				t.w.id, t.w.started)
		}
		if err := t.exec(upsertLatest(n), args...); err != nil {
			return fmt.Errorf("update latest points: %w", err)
		}
		ss = ss[n:]
	}
	return nil
}

const (
	upsertLatestHead = `INSERT INTO latest (board, mode, algorithm, op, block_size, key_bits, curve, threads, run_id, run_started)
	VALUES `
	upsertLatestRow  = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	upsertLatestTail = `
	ON CONFLICT (board, mode, algorithm, op, block_size, key_bits, curve, threads) DO UPDATE SET
		run_id = excluded.run_id, run_started = excluded.run_started
	WHERE excluded.run_started > latest.run_started
		OR (excluded.run_started = latest.run_started AND excluded.run_id > latest.run_id)`
)

func upsertLatest(n int) string {
	return multiRowSQL(upsertLatestHead, upsertLatestRow, upsertLatestTail, n)
}

// newestRunPerBoardFast is newestRunPerBoard without a "before" run: without a label it reads the latest table
// (the newest run of every series; the newest of those per board is the newest run with points of the board),
// about a thousand rows instead of every board run with a probe into measurements each.
func (db *DB) newestRunPerBoardFast(ctx context.Context, board, label string) (map[string]int64, error) {
	if label != "" {
		return db.newestRunPerBoard(ctx, board, label, 0)
	}
	rows, err := db.db.QueryContext(ctx, `SELECT board, run_id FROM (SELECT board, run_id,
			row_number() OVER (PARTITION BY board ORDER BY run_started DESC, run_id DESC) AS n
		FROM latest WHERE ?1 = '' OR board = ?1) AS newest WHERE n = 1`, board)
	if err != nil {
		return nil, fmt.Errorf("find newest runs: %w", classify(err))
	}
	return scanBoardRuns(rows)
}

// scanBoardRuns reads (board, run id) rows into a map; a board named twice keeps its last row, so a query
// ordered oldest first yields each board's newest run.
func scanBoardRuns(rows *sql.Rows) (map[string]int64, error) {
	defer rows.Close()
	newest := map[string]int64{}
	for rows.Next() {
		var b string
		var id int64
		if err := rows.Scan(&b, &id); err != nil {
			return nil, fmt.Errorf("find newest runs: %w", err)
		}
		newest[b] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find newest runs: %w", classify(err))
	}
	return newest, nil
}

// compareSeries orders series by their key in the latest table.
func compareSeries(a, b series) int {
	return cmp.Or(strings.Compare(a.board, b.board), strings.Compare(a.mode, b.mode),
		strings.Compare(a.algorithm, b.algorithm), strings.Compare(a.op, b.op), cmp.Compare(a.blockSize, b.blockSize),
		cmp.Compare(a.keyBits, b.keyBits), strings.Compare(a.curve, b.curve), cmp.Compare(a.threads, b.threads))
}
