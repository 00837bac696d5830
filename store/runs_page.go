package store

import (
	"context"
	"fmt"
)

// runConds is the WHERE of Runs and CountRuns over runs r, with RunFilter's label, board, status and id as
// ?1 to ?4; an empty or zero value does not restrict. The board test is a seek in board_runs' primary key.
const runConds = `(?1 = '' OR r.label = ?1)
		AND (?2 = '' OR EXISTS (SELECT 1 FROM board_runs b WHERE b.run_id = r.id AND b.board = ?2))
		AND (?3 = '' OR r.status = ?3) AND (?4 = 0 OR r.id = ?4)`

// CountRuns counts the runs matching f (its Limit and Offset do not apply), for paging.
func (db *DB) CountRuns(ctx context.Context, f RunFilter) (int, error) {
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM runs r WHERE `+runConds, f.Label, f.Board,
		string(f.Status), f.ID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count runs in %s: %w", db.Path, classify(err))
	}
	return n, nil
}

// Run returns one run's row; an unknown id wraps ErrNotFound.
func (db *DB) Run(ctx context.Context, id int64) (Run, error) {
	if id <= 0 {
		return Run{}, fmt.Errorf("no run %d in %s: %w", id, db.Path, ErrNotFound)
	}
	runs, err := db.Runs(ctx, RunFilter{ID: id})
	if err != nil {
		return Run{}, err
	}
	if len(runs) == 0 {
		return Run{}, fmt.Errorf("no run %d in %s: %w", id, db.Path, ErrNotFound)
	}
	return runs[0], nil
}

// ExpectedPoints estimates, for each board of a run still going, how many points it will store: the points
// of that board in the newest earlier run with the same command line that ended ok. The plan itself is not
// stored, so a board without such a run is absent (its progress shows points stored only).
func (db *DB) ExpectedPoints(ctx context.Context, run Run) (map[string]ExpectedCount, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT b.board, b.run_id,
			(SELECT count(*) FROM measurements m WHERE m.run_id = b.run_id AND m.board = b.board)
		FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE r.command_line = ?1 AND r.id <> ?2 AND b.status = 'ok'
			AND (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?2)
			AND b.board IN (SELECT board FROM board_runs WHERE run_id = ?2)
		ORDER BY r.started, r.id`, run.CommandLine, run.ID)
	if err != nil {
		return nil, fmt.Errorf("estimate points of run %d: %w", run.ID, classify(err))
	}
	defer rows.Close()
	out := map[string]ExpectedCount{}
	for rows.Next() {
		var board string
		var e ExpectedCount
		if err := rows.Scan(&board, &e.FromRun, &e.Points); err != nil {
			return nil, fmt.Errorf("estimate points of run %d: %w", run.ID, err)
		}
		out[board] = e // ascending: the newest wins
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("estimate points of run %d: %w", run.ID, classify(err))
	}
	return out, nil
}

// ExpectedCount is a board's expected number of points and the run the estimate comes from.
type ExpectedCount struct {
	Points  int
	FromRun int64
}

// SeriesRuns returns the runs and board runs behind a series' points (as History returns them), so its
// history can say where the kernel, OpenSSL or fleet version changed. Each run is read once.
func (db *DB) SeriesRuns(ctx context.Context, ms []Measurement) ([]Run, []BoardRun, error) {
	var runs []Run
	var boards []BoardRun
	seen := map[int64]bool{}
	for _, m := range ms {
		if seen[m.RunID] {
			continue
		}
		seen[m.RunID] = true
		r, err := db.Run(ctx, m.RunID)
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, r)
		brs, err := db.BoardRuns(ctx, m.RunID)
		if err != nil {
			return nil, nil, err
		}
		boards = append(boards, brs...)
	}
	return runs, boards, nil
}

// SelectRun reads the points a user's run reference names: "latest" (or empty) is the latest run of each board
// (store.Filter.Latest), anything else is resolved with ResolveRun (an id or a label's newest run). An unknown
// reference wraps ErrNotFound; a run without points gives none and no error.
func (db *DB) SelectRun(ctx context.Context, ref string) ([]Measurement, error) {
	f := Filter{Latest: ref == "latest" || ref == ""}
	if !f.Latest {
		id, err := db.ResolveRun(ctx, ref)
		if err != nil {
			return nil, err
		}
		f.RunID = id
	}
	return db.Measurements(ctx, f)
}
