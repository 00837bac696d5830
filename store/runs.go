package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// Runs lists runs newest first, with their board names and point counts.
func (db *DB) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	limit := int64(f.Limit)
	if limit <= 0 {
		limit = math.MaxInt64 // no limit (SQLite's -1 is an error in PostgreSQL)
	}
	rows, err := db.db.QueryContext(ctx, `SELECT r.id, r.uuid, r.started, r.finished, r.label, r.tool_version, r.host,
			r.command_line, r.source, r.status, `+db.boardNamesJSON()+`,
			(SELECT coalesce(sum(c.points), 0) FROM point_counts c WHERE c.run_id = r.id)
		FROM runs r WHERE `+runConds+`
		ORDER BY r.started DESC, r.id DESC LIMIT ?5 OFFSET ?6`, f.Label, f.Board, string(f.Status), f.ID, limit, max(f.Offset, 0))
	if err != nil {
		return nil, fmt.Errorf("list runs in %s: %w", db.Path, classify(err))
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		var r Run
		var started, finished sql.NullString
		var boards string
		if err := rows.Scan(&r.ID, &r.UUID, &started, &finished, &r.Label, &r.ToolVersion, &r.Host, &r.CommandLine,
			&r.Source, &r.Status, &boards, &r.Points); err != nil {
			return nil, fmt.Errorf("list runs in %s: %w", db.Path, err)
		}
		if r.Started, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("list runs in %s: run %d: %w", db.Path, r.ID, err)
		}
		if r.Finished, err = parseTime(finished); err != nil {
			return nil, fmt.Errorf("list runs in %s: run %d: %w", db.Path, r.ID, err)
		}
		if err := json.Unmarshal([]byte(boards), &r.Boards); err != nil {
			return nil, fmt.Errorf("list runs in %s: run %d boards: %w", db.Path, r.ID, err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs in %s: %w", db.Path, classify(err))
	}
	rows.Close()
	ids := make([]int64, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	judged, err := db.judgedPoints(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range runs {
		runs[i].Judged = runJudged(judged[runs[i].ID], runs[i].Boards)
	}
	return runs, nil
}

// boardNamesJSON is the SQL of a run's board names, sorted, as a JSON array (the one aggregate the dialects
// spell differently).
func (db *DB) boardNamesJSON() string {
	if db.db.dialect == dialectPostgres {
		return `(SELECT coalesce(json_agg(board ORDER BY board), '[]')::text FROM board_runs WHERE run_id = r.id)`
	}
	return `(SELECT json_group_array(board) FROM (SELECT board FROM board_runs WHERE run_id = r.id ORDER BY board))`
}

// ResolveRun turns a user's reference into a run id: "latest" (or empty) is the newest run, "previous" the one
// before it (as regress --baseline previous reads it, over all boards), a number is that
// run, a UUID (as `fleet show` prints it) is the run with that UUID, anything else is a label and means the
// newest run with it. An unknown reference wraps ErrNotFound.
func (db *DB) ResolveRun(ctx context.Context, ref string) (int64, error) {
	var id int64
	var err error
	var what string
	if n, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		what = fmt.Sprintf("run %d", n)
		err = db.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE id = ?`, n).Scan(&id)
	} else if IsRunUUID(ref) {
		what = "run " + strings.ToLower(ref)
		err = db.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE uuid = ?`, strings.ToLower(ref)).Scan(&id)
	} else if ref == "" || ref == "latest" {
		what = "runs"
		err = db.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE status <> 'reference' ORDER BY started DESC, id DESC LIMIT 1`).Scan(&id)
	} else if ref == "previous" {
		what = "run before the latest"
		err = db.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE status <> 'reference' ORDER BY started DESC, id DESC LIMIT 1 OFFSET 1`).Scan(&id)
	} else {
		what = fmt.Sprintf("run labelled %q", ref)
		measured, reference, kerr := db.labelKinds(ctx, ref)
		if kerr != nil {
			return 0, kerr
		}
		if measured > 0 && reference > 0 {
			return 0, fmt.Errorf("resolve run labelled %q in %s: %w (%d measured, %d reference): name the run by its id "+
				"(fleet runs lists them)", ref, db.Path, ErrLabelMixed, measured, reference)
		}
		err = db.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE label = ? ORDER BY started DESC, id DESC LIMIT 1`,
			ref).Scan(&id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("no %s in %s: %w", what, db.Path, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("resolve run %q in %s: %w", ref, db.Path, classify(err))
	}
	return id, nil
}

// checkRun returns an error wrapping ErrNotFound when there is no run id.
func (db *DB) checkRun(ctx context.Context, id int64) error {
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE id = ?`, id).Scan(&n); err != nil {
		return fmt.Errorf("find run %d in %s: %w", id, db.Path, classify(err))
	}
	if n == 0 {
		return fmt.Errorf("no run %d in %s: %w", id, db.Path, ErrNotFound)
	}
	return nil
}

// BoardRuns returns each board's part of a run, by board name, with its facts, point count and skips.
func (db *DB) BoardRuns(ctx context.Context, runID int64) ([]BoardRun, error) {
	if err := db.checkRun(ctx, runID); err != nil {
		return nil, err
	}
	brs, err := db.boardRunRows(ctx, runID)
	if err != nil {
		return nil, err
	}
	if err := db.addSkips(ctx, runID, brs); err != nil {
		return nil, err
	}
	judged, err := db.judgedPoints(ctx, []int64{runID})
	if err != nil {
		return nil, err
	}
	for i := range brs {
		if j := judged[runID][brs[i].Board]; j != nil {
			brs[i].Judged = *j
		}
		if brs[i].Previous, err = db.previousFacts(ctx, runID, brs[i].Board); err != nil {
			return nil, err
		}
	}
	return brs, nil
}

// boardRunRows reads the board_runs rows of a run, by board name, with each board's point count. Its rows are
// closed when it returns, before the next query of BoardRuns.
func (db *DB) boardRunRows(ctx context.Context, runID int64) ([]BoardRun, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT b.board, b.status, b.error, b.facts, b.started, b.finished,
			(SELECT coalesce(sum(c.points), 0) FROM point_counts c WHERE c.run_id = b.run_id AND c.board = b.board),
			b.validity, b.validity_reasons, b.kernel
		FROM board_runs b WHERE b.run_id = ? ORDER BY b.board`, runID)
	if err != nil {
		return nil, fmt.Errorf("read boards of run %d: %w", runID, classify(err))
	}
	defer rows.Close()
	var brs []BoardRun
	for rows.Next() {
		br, err := scanBoardRun(rows, runID)
		if err != nil {
			return nil, err
		}
		brs = append(brs, br)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read boards of run %d: %w", runID, classify(err))
	}
	return brs, nil
}

// scanBoardRun reads one row of boardRunRows' query, decoding its JSON facts, validity reasons and kernel health.
func scanBoardRun(rows *sql.Rows, runID int64) (BoardRun, error) {
	br := BoardRun{RunID: runID}
	var facts, started, finished, reasons, kernel sql.NullString
	if err := rows.Scan(&br.Board, &br.Status, &br.Error, &facts, &started, &finished, &br.Points,
		&br.Validity, &reasons, &kernel); err != nil {
		return br, fmt.Errorf("read boards of run %d: %w", runID, err)
	}
	if facts.Valid {
		br.Facts = new(protocol.Facts)
		if err := json.Unmarshal([]byte(facts.String), br.Facts); err != nil {
			return br, fmt.Errorf("read facts of %s in run %d: %w", br.Board, runID, err)
		}
	}
	if reasons.Valid {
		if err := json.Unmarshal([]byte(reasons.String), &br.ValidityReasons); err != nil {
			return br, fmt.Errorf("read validity of %s in run %d: %w", br.Board, runID, err)
		}
	}
	if kernel.Valid {
		br.Kernel = new(protocol.KernelHealth)
		if err := json.Unmarshal([]byte(kernel.String), br.Kernel); err != nil {
			return br, fmt.Errorf("read kernel health of %s in run %d: %w", br.Board, runID, err)
		}
	}
	var err error
	if br.Started, err = parseTime(started); err != nil {
		return br, fmt.Errorf("read boards of run %d: %w", runID, err)
	}
	if br.Finished, err = parseTime(finished); err != nil {
		return br, fmt.Errorf("read boards of run %d: %w", runID, err)
	}
	return br, nil
}

// addSkips gives each board run of brs the skips its run stored for it, in the order they were stored.
func (db *DB) addSkips(ctx context.Context, runID int64, brs []BoardRun) error {
	index := make(map[string]int, len(brs))
	for i, br := range brs {
		index[br.Board] = i
	}
	rows, err := db.db.QueryContext(ctx, `SELECT board, mode, algorithm, reason FROM skips WHERE run_id = ?
		ORDER BY id`, runID)
	if err != nil {
		return fmt.Errorf("read skips of run %d: %w", runID, classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var board string
		var s protocol.Skip
		if err := rows.Scan(&board, &s.Mode, &s.Algorithm, &s.Reason); err != nil {
			return fmt.Errorf("read skips of run %d: %w", runID, err)
		}
		if i, ok := index[board]; ok {
			brs[i].Skips = append(brs[i].Skips, s)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read skips of run %d: %w", runID, classify(err))
	}
	return nil
}

// previousFacts returns the facts of board's newest run before run (by start time) that has facts, nil when
// there is none.
func (db *DB) previousFacts(ctx context.Context, run int64, board string) (*PreviousFacts, error) {
	var id int64
	var facts string
	err := db.db.QueryRowContext(ctx, `SELECT b.run_id, b.facts FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE b.board = ?1 AND b.facts IS NOT NULL AND b.run_id <> ?2
			AND (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?2)
		ORDER BY r.started DESC, r.id DESC LIMIT 1`, board, run).Scan(&id, &facts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read facts of %s before run %d: %w", board, run, classify(err))
	}
	p := &PreviousFacts{RunID: id, Facts: new(protocol.Facts)}
	if err := json.Unmarshal([]byte(facts), p.Facts); err != nil {
		return nil, fmt.Errorf("read facts of %s in run %d: %w", board, id, err)
	}
	return p, nil
}
