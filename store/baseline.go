package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Baselines is what a baseline reference resolves to for the boards of a judged run: the run each board is
// judged against, and for every other board why it has none. A regression check judges the boards in Runs and
// lists the boards in Missing as "no baseline", so one board without a baseline never stops the others.
type Baselines struct {
	Runs    map[string]int64  // board → its baseline run
	Missing map[string]string // board → why it has no baseline, e.g. `no run labelled "nightly" before run 7`
	// Skipped says, per board, which newer runs the reference matched but were passed over as invalid, e.g.
	// "run 9: invalid (3 of 36 points invalid (first: background CPU 38 % (limit 8 %)))".
	Skipped map[string][]string
}

// ResolveBaselines resolves a user's baseline reference for each board of judged (board → the run judged):
//
//   - a run id: that run, for the boards it has valid points of;
//   - "previous": each board's newest valid run that started before its judged run;
//   - "latest": each board's newest valid run other than its judged run (newer ones too);
//   - anything else is a label: each board's newest valid run with that label that started before its judged
//     run, so a run is never its own baseline.
//
// A valid run of a board has at least one point of it that did not fail and was not judged invalid, and the
// board run itself was not judged invalid (validity, issue 12): a nightly run in which a board failed or was busy
// is skipped for the one before it, and Skipped says so. An unknown run id, or no baseline for any board, wraps ErrNotFound and
// names every board's reason; Baselines is filled in either case.
func (db *DB) ResolveBaselines(ctx context.Context, ref string, judged map[string]int64) (Baselines, error) {
	bl := Baselines{Runs: map[string]int64{}, Missing: map[string]string{}, Skipped: map[string][]string{}}
	if ref == "" {
		return bl, fmt.Errorf("resolve baseline in %s: empty reference", db.Path)
	}
	if len(judged) == 0 {
		return bl, fmt.Errorf("resolve baseline %q in %s: no boards to judge: %w", ref, db.Path, ErrNotFound)
	}
	for _, board := range sortedKeys(judged) {
		if err := db.checkRun(ctx, judged[board]); err != nil {
			return bl, fmt.Errorf("resolve baseline %q: judged run of %s: %w", ref, board, err)
		}
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		if err := db.checkRun(ctx, id); err != nil {
			return bl, fmt.Errorf("resolve baseline %q: %w", ref, err)
		}
	}
	for _, board := range sortedKeys(judged) {
		run, why, err := db.baselineOf(ctx, ref, board, judged[board])
		if err != nil {
			return bl, fmt.Errorf("resolve baseline %q for %s in %s: %w", ref, board, db.Path, err)
		}
		if run == 0 {
			bl.Missing[board] = why
		} else {
			bl.Runs[board] = run
		}
		skipped, err := db.skippedInvalid(ctx, ref, board, judged[board], run)
		if err != nil {
			return bl, fmt.Errorf("resolve baseline %q for %s in %s: %w", ref, board, db.Path, err)
		}
		if len(skipped) > 0 {
			bl.Skipped[board] = skipped
		}
	}
	if len(bl.Runs) == 0 {
		var why []string
		for _, board := range sortedKeys(judged) {
			why = append(why, board+": "+bl.Missing[board])
		}
		return bl, fmt.Errorf("no board has baseline %q in %s (%s): %w", ref, db.Path, strings.Join(why, "; "), ErrNotFound)
	}
	return bl, nil
}

// baselineOf resolves ref for one board whose judged run is judged: the baseline run, or 0 and why there is none.
func (db *DB) baselineOf(ctx context.Context, ref, board string, judged int64) (int64, string, error) {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		runs, err := db.newestRuns(ctx, runQuery{board: board, only: id, valid: true})
		if err != nil || runs[board] != 0 {
			return runs[board], "", err
		}
		return 0, fmt.Sprintf("run %d has no valid points of %s", id, board), nil
	}
	switch ref {
	case "previous":
		runs, err := db.newestRuns(ctx, runQuery{board: board, before: judged, valid: true})
		if err != nil || runs[board] != 0 {
			return runs[board], "", err
		}
		return 0, fmt.Sprintf("no run with valid points of %s before run %d", board, judged), nil
	case "latest":
		runs, err := db.newestRuns(ctx, runQuery{board: board, valid: true})
		if err == nil && runs[board] == judged {
			// The judged run is the newest: the newest other one started before it.
			runs, err = db.newestRuns(ctx, runQuery{board: board, before: judged, valid: true})
		}
		if err != nil || runs[board] != 0 {
			return runs[board], "", err
		}
		return 0, fmt.Sprintf("no run with valid points of %s other than run %d", board, judged), nil
	}
	runs, err := db.newestRuns(ctx, runQuery{board: board, label: ref, before: judged, valid: true})
	if err != nil || runs[board] != 0 {
		return runs[board], "", err
	}
	return 0, fmt.Sprintf("no run labelled %q with valid points of %s before run %d", ref, board, judged), nil
}

// newestRunPerBoard returns, for each board (or only board, when set), the newest run that stored points of
// that board, among runs with the label (when set) that started before run before (when not 0).
func (db *DB) newestRunPerBoard(ctx context.Context, board, label string, before int64) (map[string]int64, error) {
	return db.newestRuns(ctx, runQuery{board: board, label: label, before: before})
}

// runQuery selects, per board, the runs newestRuns considers. Zero fields do not restrict.
type runQuery struct {
	board, label string
	before       int64 // only runs that started before this one
	only         int64 // only this run
	valid        bool  // only board runs not judged invalid, with at least one point that did not fail and is not invalid
}

// newestRuns returns, for each board, the newest run (by start time, then id) that stored points of that board
// and matches q.
func (db *DB) newestRuns(ctx context.Context, q runQuery) (map[string]int64, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT b.board, b.run_id FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE (?1 = '' OR b.board = ?1) AND (?2 = '' OR r.label = ?2) AND r.status <> 'reference'
			AND (?3 = 0 OR (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?3))
			AND (?4 = 0 OR r.id = ?4)
			AND (?5 = 0 OR b.validity != 'invalid')
			AND EXISTS (SELECT 1 FROM measurements m WHERE m.run_id = b.run_id AND m.board = b.board
				AND (?5 = 0 OR (m.failed = 0 AND m.validity != 'invalid')))
		ORDER BY r.started, r.id`, q.board, q.label, q.before, q.only, q.valid)
	if err != nil {
		return nil, fmt.Errorf("find newest runs: %w", classify(err))
	}
	return scanBoardRuns(rows) // ascending order: the last one wins
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// skippedInvalid lists the board runs that ref would have chosen for board but that were judged invalid: those
// newer than the chosen baseline (all of them when there is none), before the judged run for "previous" and
// labels, each as "run N: invalid (reasons)".
func (db *DB) skippedInvalid(ctx context.Context, ref, board string, judged, chosen int64) ([]string, error) {
	if _, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return nil, nil // a run named by id is never passed over for another
	}
	label, before := "", judged
	switch ref {
	case "latest":
		before = 0
	case "previous":
	default:
		label = ref
	}
	rows, err := db.db.QueryContext(ctx, `SELECT b.run_id, b.validity_reasons FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE b.board = ?1 AND b.validity = 'invalid' AND (?2 = '' OR r.label = ?2) AND r.id != ?5
			AND r.status <> 'reference'
			AND (?3 = 0 OR (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?3))
			AND (?4 = 0 OR (r.started, r.id) > (SELECT started, id FROM runs WHERE id = ?4))
		ORDER BY r.started DESC, r.id DESC`, board, label, before, chosen, judged)
	if err != nil {
		return nil, fmt.Errorf("find invalid runs: %w", classify(err))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var reasons sql.NullString
		if err := rows.Scan(&id, &reasons); err != nil {
			return nil, fmt.Errorf("find invalid runs: %w", err)
		}
		var rs []string
		if reasons.Valid {
			_ = json.Unmarshal([]byte(reasons.String), &rs) // the reasons are for people; a bad list is left out
		}
		s := fmt.Sprintf("run %d: invalid", id)
		if len(rs) > 0 {
			s += " (" + strings.Join(rs, "; ") + ")"
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find invalid runs: %w", classify(err))
	}
	return out, nil
}
