package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// seriesWhere holds the conditions of k on board_runs b and measurements m, and leaves reference runs out.
func seriesWhere(k SeriesKey) where {
	w := seriesConds(k)
	// A vendor's published figures are never a point of a series' history (nor a baseline or a change).
	w.add("r.status <> ?", string(protocol.StatusReference))
	return w
}

// seriesConds holds the conditions of k alone on board_runs b and measurements m.
func seriesConds(k SeriesKey) where {
	var w where
	w.add("b.board = ?", k.Board)
	w.add("m.mode = ?", k.Mode)
	w.add("m.algorithm = ?", k.Algorithm)
	w.add("m.block_size = ?", k.BlockSize)
	if k.Threads != 0 {
		w.add("m.threads = ?", k.Threads)
	}
	if k.Op != "" {
		w.add("m.op = ?", k.Op)
	}
	if k.KeyBits != 0 {
		w.add("m.key_bits = ?", k.KeyBits)
	}
	if k.Curve != "" {
		w.add("m.curve = ?", k.Curve)
	}
	return w
}

// HistoryPage is History bounded to runs newest first: the points of the runs number offset+1 to
// offset+limit, counted from the newest run that measured the series, returned oldest run first like History;
// limit is at most 500.
// More says whether older runs of the series exist beyond the page. A history of 100,000 runs is read one
// page at a time; limit must be positive.
func (db *DB) HistoryPage(ctx context.Context, k SeriesKey, offset, limit int) (ms []Measurement, more bool, err error) {
	if k.Board == "" || k.Mode == "" || k.Algorithm == "" {
		return nil, false, fmt.Errorf("read history: board, mode and algorithm are required")
	}
	if limit <= 0 || limit > 500 || offset < 0 {
		return nil, false, fmt.Errorf("read history: page offset %d, limit %d out of range", offset, limit)
	}
	w := seriesWhere(k)
	// The runs of the board, newest first, each tested for the series with a seek in measurements_run_series;
	// one more than the page tells whether there are older ones.
	runs := `SELECT r.id FROM board_runs b CROSS JOIN runs r ON r.id = b.run_id
		WHERE b.board = ? AND EXISTS (SELECT 1 FROM measurements m WHERE m.run_id = b.run_id AND m.board = b.board AND ` +
		joinConds(w.conds[1:]) + `) ORDER BY r.started DESC, r.id DESC LIMIT ? OFFSET ?`
	args := append(append([]any{}, w.args...), limit+1, offset)
	ids, err := db.queryIDs(ctx, runs, args...)
	if err != nil {
		return nil, false, fmt.Errorf("read history page in %s: %w", db.Path, err)
	}
	if len(ids) > limit {
		ids, more = ids[:limit], true
	}
	if len(ids) == 0 {
		return nil, more, nil
	}
	w.conds = append(w.conds, "b.run_id IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+")")
	for _, id := range ids {
		w.args = append(w.args, id)
	}
	ms, err = db.queryMeasurements(ctx, "read history page", `SELECT `+measurementCols+fromBoardRuns+w.sql()+`
		ORDER BY r.started, r.id, m.id`, w.args...)
	return ms, more, err
}

func joinConds(conds []string) string { return strings.Join(conds, " AND ") }

func (db *DB) queryIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, classify(rows.Err())
}
