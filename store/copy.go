package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// CopyFilter selects the runs Copy copies; zero fields select everything. A run is always copied whole: with
// Board, the runs that measured that board, with all their boards.
type CopyFilter struct {
	RunIDs   []int64  // only these runs (ids of the source)
	RunUUIDs []string // only these runs, by UUID
	Board    string
	Since    time.Time // only runs started at or after it

	// IncludeRunning copies runs still marked running as they are. Without it they are left out (and listed in
	// CopyResult.Running): a run going on elsewhere would be copied half-measured, and since a copy is never
	// replaced (Copy skips what the destination has), the rest would never follow. A run whose controller died
	// stays running for ever; copy it with IncludeRunning when that is what it is.
	IncludeRunning bool
}

// CopyProgress is what Copy has done so far, reported after each batch of points and after each run.
type CopyProgress struct {
	Runs, RunsTotal     int // runs copied, of those to copy
	Points, PointsTotal int // points copied, of those to copy (of whole runs: an interrupted run's count again)
	Run                 int64
}

// CopyResult is what Copy did.
type CopyResult struct {
	Copied  int     // runs copied
	Points  int     // points of the runs copied
	Present int     // runs skipped because the destination has their UUID
	Running []int64 // source ids of runs skipped because they are still running (see CopyFilter.IncludeRunning)
}

// Copy copies the runs of src selected by f into dst, oldest first, each with its board runs (status, facts,
// validity), skips, raw outputs and points (with their validity and evidence), and points dst's latest table
// at them where they are the newest. Runs dst already has (by UUID) are skipped, so copying twice copies
// nothing the second time. Each run is copied in one transaction of dst: a failure or a cancelled ctx (Ctrl-C)
// leaves whole runs only, and copying again resumes. Copied runs get dst's own ids; leases are not copied
// (they belong to the controllers of one database). progress, when not nil, is called from Copy's goroutine.
//
// Copy only reads src: open it with OpenReadOnly.
func Copy(ctx context.Context, src, dst *DB, f CopyFilter, progress func(CopyProgress)) (CopyResult, error) {
	var res CopyResult
	runs, err := src.copyCandidates(ctx, f)
	if err != nil {
		return res, err
	}
	have, err := dst.runUUIDs(ctx)
	if err != nil {
		return res, err
	}
	var todo []copyRun
	var p CopyProgress
	for _, r := range runs {
		switch {
		case have[r.uuid]:
			res.Present++
		case r.status == string(protocol.StatusRunning) && !f.IncludeRunning:
			res.Running = append(res.Running, r.id)
		default:
			todo = append(todo, r)
			p.PointsTotal += r.points
		}
	}
	if err := checkCopyLabels(ctx, dst, todo); err != nil {
		return res, err
	}
	p.RunsTotal = len(todo)
	if progress == nil {
		progress = func(CopyProgress) {}
	}
	progress(p)
	for _, r := range todo {
		p.Run = r.id
		done := p
		copied, err := copyOneRun(ctx, src, dst, r, func(n int) {
			p.Points += n
			progress(p)
		})
		if err != nil {
			return res, fmt.Errorf("copy run %d (%s) from %s to %s: %w", r.id, r.uuid, src.Path, dst.Path, err)
		}
		if !copied { // another copy wrote it meanwhile
			res.Present++
			p = done
			p.RunsTotal--
			p.PointsTotal -= r.points
			progress(p)
			continue
		}
		res.Copied++
		res.Points += r.points
		p.Runs++
		progress(p)
	}
	return res, nil
}

// copyRun is one run of the source, its columns as stored.
type copyRun struct {
	id                                          int64
	uuid, started, label, tool, host, cmd, srcd string
	finished                                    *string
	status                                      string
	points                                      int
}

// copyCandidates lists the source's runs selected by f, oldest first, with their point counts.
func (db *DB) copyCandidates(ctx context.Context, f CopyFilter) ([]copyRun, error) {
	since := ""
	if !f.Since.IsZero() {
		since = formatTime(f.Since)
	}
	rows, err := db.db.QueryContext(ctx, `SELECT r.id, r.uuid, r.started, r.finished, r.label, r.tool_version,
			r.host, r.command_line, r.source, r.status, (SELECT coalesce(sum(c.points), 0) FROM point_counts c WHERE c.run_id = r.id)
		FROM runs r WHERE r.started >= ?
			AND (? = '' OR EXISTS (SELECT 1 FROM board_runs b WHERE b.run_id = r.id AND b.board = ?))
		ORDER BY r.started, r.id`, since, f.Board, f.Board)
	if err != nil {
		return nil, fmt.Errorf("list runs to copy from %s: %w", db.Path, db.explainPermission(ctx, classify(err), accessRead))
	}
	defer rows.Close()
	uuids := make([]string, len(f.RunUUIDs))
	for i, u := range f.RunUUIDs {
		uuids[i] = strings.ToLower(u)
	}
	var out []copyRun
	for rows.Next() {
		var r copyRun
		if err := rows.Scan(&r.id, &r.uuid, &r.started, &r.finished, &r.label, &r.tool, &r.host, &r.cmd, &r.srcd,
			&r.status, &r.points); err != nil {
			return nil, fmt.Errorf("list runs to copy from %s: %w", db.Path, err)
		}
		if len(f.RunIDs)+len(uuids) > 0 && !slices.Contains(f.RunIDs, r.id) && !slices.Contains(uuids, r.uuid) {
			continue
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs to copy from %s: %w", db.Path, db.explainPermission(ctx, classify(err), accessRead))
	}
	return out, nil
}

// runUUIDs is the set of the UUIDs of every run in db.
func (db *DB) runUUIDs(ctx context.Context) (map[string]bool, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT uuid FROM runs`)
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", db.Path, db.explainPermission(ctx, classify(err), accessRead))
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("list runs of %s: %w", db.Path, err)
		}
		have[u] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", db.Path, db.explainPermission(ctx, classify(err), accessRead))
	}
	return have, nil
}

// copyOneRun writes run r of src into dst in one transaction, reporting each batch of points stored. It
// reports false, writing nothing, when dst has the run's UUID by the time the transaction holds it.
func copyOneRun(ctx context.Context, src, dst *DB, r copyRun, stored func(points int)) (copied bool, err error) {
	tx, err := dst.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("begin: %w", classify(err))
	}
	defer func() {
		if err != nil || !copied {
			tx.Rollback()
		}
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
	}()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE uuid = ?`, r.uuid).Scan(&n); err != nil {
		return false, fmt.Errorf("look up uuid: %w", dst.explainPermission(ctx, classify(err), accessRead))
	}
	if n > 0 {
		return false, nil
	}
	w := &RunWriter{db: dst, uuid: r.uuid, started: r.started, boards: map[string]bool{}, series: map[series]bool{},
		reference: r.status == string(protocol.StatusReference)}
	if err := tx.QueryRowContext(ctx, `INSERT INTO runs (uuid, started, finished, label, tool_version, host,
			command_line, source, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		r.uuid, r.started, r.finished, r.label, r.tool, r.host, r.cmd, r.srcd, r.status).Scan(&w.id); err != nil {
		// Another copy into a PostgreSQL dst may have inserted the same run since the check (its unique index
		// made this insert wait for that transaction, then fail): the run is there, which is what was wanted.
		tx.Rollback()
		if have, herr := dst.runUUIDs(ctx); herr == nil && have[r.uuid] {
			return false, nil
		}
		return false, fmt.Errorf("insert run: %w", dst.explainPermission(ctx, classify(err), accessWrite))
	}
	t := &txWriter{ctx: ctx, tx: tx, w: w}
	if err := copyBoardRuns(ctx, src, t, r.id); err != nil {
		return false, err
	}
	if err := copyRaws(ctx, src, t, r.id); err != nil {
		return false, err
	}
	if err := copySkips(ctx, src, t, r.id); err != nil {
		return false, err
	}
	if err := copyPoints(ctx, src, t, r.id, stored); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("commit: %w", dst.explainPermission(ctx, classify(err), accessWrite))
	}
	return true, nil
}
