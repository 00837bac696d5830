package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// latestPoints is LatestPoints without a label: for each matching row of latest, the points of its series in
// the run it names (a seek in measurements_run_series each). Two decisions keep the ~3000 rows of "all
// series" cheap, where reading and converting columns, not finding the rows, is most of the cost:
//   - the runs' label, start and tool version are read once per run (latest names a few runs: a run claims
//     every series it measures), not joined onto every point and parsed again for each;
//   - the points are ordered here, not by the query: PostgreSQL sorted the wide rows after its joins (a third
//     of the query's time on the 1 M-point store), and SQLite's scan of latest already yields this order.
func (db *DB) latestPoints(ctx context.Context, f Filter) ([]Measurement, error) {
	w := pointWhere(f, "l")
	out, err := db.queryPoints(ctx, "read latest points", 0, `SELECT `+pointCols+` FROM latest l
		CROSS JOIN measurements m ON m.run_id = l.run_id AND `+sameSeries+w.sql(), w.args...)
	if err != nil {
		return nil, err
	}
	if out, err = db.withRuns(ctx, out); err != nil {
		return nil, fmt.Errorf("read latest points in %s: %w", db.Path, err)
	}
	slices.SortFunc(out, compareSeriesPoints)
	return out, nil
}

// runPoints is Measurements of one run (f.RunID, no label): its points in arrival order, the run's columns
// read once instead of joined onto each of its thousands of points (the run, compare and regress pages read
// whole runs).
func (db *DB) runPoints(ctx context.Context, f Filter) ([]Measurement, error) {
	w := pointWhere(f, "m")
	w.add("m.run_id = ?", f.RunID)
	var hint int
	if f.Mode == "" && f.Algorithm == "" && !(f.SizeSet && f.Size >= 0) {
		var err error
		if hint, err = db.countPoints(ctx, f.RunID, f.Board); err != nil {
			return nil, fmt.Errorf("read measurements in %s: %w", db.Path, err)
		}
	}
	cols, scan := pointCols, scanPoint
	if f.ForRegression {
		cols, scan = regressionCols, scanRegression
	}
	// In the order of measurements_run_series, sorted here: the database sorted the wide rows in a temporary
	// B-tree (SQLite: a third of the regress page's reading time), where sorting their ids costs nothing.
	out, err := db.queryRows(ctx, "read measurements", hint, scan, `SELECT `+cols+` FROM measurements m`+w.sql(), w.args...)
	if err != nil {
		return nil, err
	}
	sortByID(out)
	if out, err = db.withRuns(ctx, out); err != nil {
		return nil, fmt.Errorf("read measurements in %s: %w", db.Path, err)
	}
	return out, nil
}

// sortByID orders ms by id in place, moving each point once: a point is about 500 bytes, which a comparison
// sort would swap a dozen times.
func sortByID(ms []Measurement) {
	if slices.IsSortedFunc(ms, func(a, b Measurement) int { return cmp.Compare(a.ID, b.ID) }) {
		return
	}
	order := make([]int, len(ms)) // order[i]: the index in ms of the point that belongs at i
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ms[a].ID, ms[b].ID) })
	for i := range order { // follow each cycle of the permutation once
		if order[i] == i || order[i] < 0 {
			continue
		}
		tmp := ms[i]
		j := i
		for order[j] != i {
			next := order[j]
			ms[j] = ms[next]
			order[j] = -1
			j = next
		}
		ms[j] = tmp
		order[j] = -1
	}
}

// queryPoints reads rows of pointCols, about rowsHint of them (see queryRows); their runs' columns are left to
// withRuns.
func (db *DB) queryPoints(ctx context.Context, op string, rowsHint int, query string, args ...any) ([]Measurement, error) {
	return db.queryRows(ctx, op, rowsHint, scanPoint, query, args...)
}

// countPoints is how many points the run has (of board, when not ""), from point_counts: a few rows per board
// run. It sizes a read of the points; a count that is off only costs a copy.
func (db *DB) countPoints(ctx context.Context, runID int64, board string) (int, error) {
	var n int64
	err := db.db.QueryRowContext(ctx, `SELECT coalesce(sum(points), 0) FROM point_counts WHERE run_id = ?1 AND (?2 = '' OR board = ?2)`,
		runID, board).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count points of run %d: %w", runID, classify(err))
	}
	return int(min(n, 1<<20)), nil
}

// maxRunIDs bounds the run ids of one IN list.
const maxRunIDs = 500

// withRuns fills in the label, start and tool version of each measurement's run, reading each run once. A
// point whose run is gone (dropped between the two reads by DropBoards) is left out, as a read after the drop
// would.
func (db *DB) withRuns(ctx context.Context, ms []Measurement) ([]Measurement, error) {
	type runCols struct {
		label, tool string
		started     time.Time
	}
	runs := map[int64]*runCols{}
	var ids []any
	for i := range ms {
		if _, ok := runs[ms[i].RunID]; !ok {
			runs[ms[i].RunID] = nil
			ids = append(ids, ms[i].RunID)
		}
	}
	for len(ids) > 0 {
		n := min(len(ids), maxRunIDs)
		rows, err := db.db.QueryContext(ctx, `SELECT id, label, started, tool_version FROM runs WHERE id IN (?`+
			strings.Repeat(", ?", n-1)+`)`, ids[:n]...)
		if err != nil {
			return nil, fmt.Errorf("read runs: %w", classify(err))
		}
		for rows.Next() {
			var id int64
			var r runCols
			var started sql.NullString
			err := rows.Scan(&id, &r.label, &started, &r.tool)
			if err == nil {
				r.started, err = parseTime(started)
			}
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("read runs: %w", err)
			}
			runs[id] = &r
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read runs: %w", classify(err))
		}
		ids = ids[n:]
	}
	kept := ms[:0]
	for i := range ms {
		r := runs[ms[i].RunID]
		if r == nil {
			continue
		}
		ms[i].RunLabel, ms[i].RunStarted, ms[i].RunTool = r.label, r.started, r.tool
		kept = append(kept, ms[i])
	}
	return kept, nil
}
