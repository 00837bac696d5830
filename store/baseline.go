package store

import (
	"context"
	"fmt"
	"sort"
)

// newestRunPerBoard returns, for each board (or only board, when set), the newest run that stored points of
// that board, among runs with the label (when set) that started before run before (when not 0).
func (db *DB) newestRunPerBoard(ctx context.Context, board, label string, before int64) (map[string]int64, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT b.board, b.run_id FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE (?1 = '' OR b.board = ?1) AND (?2 = '' OR r.label = ?2)
			AND (?3 = 0 OR (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?3))
			AND EXISTS (SELECT 1 FROM measurements m WHERE m.run_id = b.run_id AND m.board = b.board)
		ORDER BY r.started, r.id`, board, label, before)
	if err != nil {
		return nil, fmt.Errorf("find newest runs: %w", classify(err))
	}
	defer rows.Close()
	newest := map[string]int64{}
	for rows.Next() {
		var b string
		var id int64
		if err := rows.Scan(&b, &id); err != nil {
			return nil, fmt.Errorf("find newest runs: %w", err)
		}
		newest[b] = id // ascending order: the last one wins
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find newest runs: %w", classify(err))
	}
	return newest, nil
}

// RunsForBaseline returns, per board, the newest run with the label that has points of that board: the
// baseline a regression check compares against. With before set (not 0), only runs that started before that
// run count, so a run is never its own baseline. No such run at all wraps ErrNotFound.
func (db *DB) RunsForBaseline(ctx context.Context, label string, before int64) (map[string]int64, error) {
	if label == "" {
		return nil, fmt.Errorf("find baseline runs: empty label")
	}
	if before != 0 {
		if err := db.checkRun(ctx, before); err != nil {
			return nil, err
		}
	}
	runs, err := db.newestRunPerBoard(ctx, "", label, before)
	if err != nil {
		return nil, fmt.Errorf("find baseline %q in %s: %w", label, db.Path, err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no run labelled %q with points in %s: %w", label, db.Path, ErrNotFound)
	}
	return runs, nil
}

// PreviousRun returns the newest run before runID that has points of board. None wraps ErrNotFound.
func (db *DB) PreviousRun(ctx context.Context, runID int64, board string) (int64, error) {
	if err := db.checkRun(ctx, runID); err != nil {
		return 0, err
	}
	if board == "" {
		return 0, fmt.Errorf("find run before %d: empty board name", runID)
	}
	runs, err := db.newestRunPerBoard(ctx, board, "", runID)
	if err != nil {
		return 0, fmt.Errorf("find run of %s before %d in %s: %w", board, runID, db.Path, err)
	}
	id, ok := runs[board]
	if !ok {
		return 0, fmt.Errorf("no run of %s before run %d in %s: %w", board, runID, db.Path, ErrNotFound)
	}
	return id, nil
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
