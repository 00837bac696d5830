package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
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
			(SELECT coalesce(sum(c.points), 0) FROM point_counts c WHERE c.run_id = b.run_id AND c.board = b.board)
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

// SeriesRuns returns what a history needs to know of the runs behind a series' points (as History returns
// them): each run's row, without its board list and point count (not needed there, and costly over hundreds
// of runs), and the facts of each board in each run, as BoardRuns with only RunID, Board and Facts set. The
// history says from them where the kernel, OpenSSL or fleet version changed.
func (db *DB) SeriesRuns(ctx context.Context, ms []Measurement) ([]Run, []BoardRun, error) {
	var ids []int64
	seen := map[int64]bool{}
	perBoard := map[string][]int64{}
	seenBoard := map[string]map[int64]bool{}
	for _, m := range ms {
		if !seen[m.RunID] {
			seen[m.RunID] = true
			ids = append(ids, m.RunID)
		}
		if seenBoard[m.Board] == nil {
			seenBoard[m.Board] = map[int64]bool{}
		}
		if !seenBoard[m.Board][m.RunID] {
			seenBoard[m.Board][m.RunID] = true
			perBoard[m.Board] = append(perBoard[m.Board], m.RunID)
		}
	}
	runs, err := db.runRows(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	var boards []BoardRun
	for _, board := range sortedKeysOfLists(perBoard) {
		facts, err := db.FactsOfRuns(ctx, board, perBoard[board])
		if err != nil {
			return nil, nil, err
		}
		for _, id := range perBoard[board] {
			if f, ok := facts[id]; ok {
				boards = append(boards, BoardRun{RunID: id, Board: board, Facts: f})
			}
		}
	}
	return runs, boards, nil
}

// runRows reads the rows of runs by id, in the order of ids, without board lists and point counts.
func (db *DB) runRows(ctx context.Context, ids []int64) ([]Run, error) {
	byID := map[int64]Run{}
	for rest := ids; len(rest) > 0; {
		n := min(len(rest), 500)
		args := make([]any, n)
		for i, id := range rest[:n] {
			args[i] = id
		}
		rows, err := db.db.QueryContext(ctx, `SELECT id, started, finished, label, tool_version, host, command_line,
				source, status FROM runs WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read runs in %s: %w", db.Path, classify(err))
		}
		for rows.Next() {
			var r Run
			var started, finished sql.NullString
			if err := rows.Scan(&r.ID, &started, &finished, &r.Label, &r.ToolVersion, &r.Host, &r.CommandLine,
				&r.Source, &r.Status); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read runs in %s: %w", db.Path, err)
			}
			if r.Started, err = parseTime(started); err == nil {
				r.Finished, err = parseTime(finished)
			}
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("read runs in %s: run %d: %w", db.Path, r.ID, err)
			}
			byID[r.ID] = r
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read runs in %s: %w", db.Path, classify(err))
		}
		rest = rest[n:]
	}
	out := make([]Run, 0, len(ids))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func sortedKeysOfLists(m map[string][]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SelectRun reads the points a user's run reference names: "latest" (or empty) is the latest run of each board
// (store.Filter.Latest), anything else is resolved with ResolveRun (an id or a label's newest run). An unknown
// reference wraps ErrNotFound; a run without points gives none and no error.
func (db *DB) SelectRun(ctx context.Context, ref string) ([]Measurement, error) {
	return db.SelectRunFor(ctx, ref, Filter{})
}

// SelectRunFor is SelectRun with the other fields of f (Board, Mode, Algorithm, Size, ForRegression); its RunID,
// Latest and Label are set from ref.
func (db *DB) SelectRunFor(ctx context.Context, ref string, f Filter) ([]Measurement, error) {
	f.RunID, f.Label, f.Latest = 0, "", ref == "latest" || ref == ""
	if !f.Latest {
		id, err := db.ResolveRun(ctx, ref)
		if err != nil {
			return nil, err
		}
		f.RunID = id
	}
	return db.Measurements(ctx, f)
}
