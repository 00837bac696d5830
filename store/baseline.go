package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// DefaultBaselineRuns is how many of a label's valid runs per board a labelled baseline pools: enough that a
// one-repeat nightly is judged against a window of history rather than against one night's noise.
const DefaultBaselineRuns = 10

// ErrBaselineInvalid is wrapped (beside ErrNotFound) when no board has a baseline and for at least one of them
// the reference matched runs whose points were all invalid or failed: nothing could be judged because of the
// board's state, not because of what the user asked for (fleet regress exits 4, not 2).
var ErrBaselineInvalid = errors.New("baseline runs have no valid points")

// ErrBaselineIsJudged is wrapped (beside ErrNotFound) when no board has a baseline and for at least one of them
// the baseline run id named the judged run itself: every point would be compared with itself and pass.
var ErrBaselineIsJudged = errors.New("the baseline is the judged run")

// Baselines is what a baseline reference resolves to for the boards of a judged run: the runs each board is
// judged against, and for every other board why it has none. A regression check judges the boards in Runs and
// lists the boards in Missing as "no baseline", so one board without a baseline never stops the others.
type Baselines struct {
	Runs map[string]int64 // board → its newest baseline run
	// Window is, per board of Runs, every baseline run, oldest first: the label's last K valid runs for a
	// labelled reference, else the one run of Runs.
	Window map[string][]int64
	// Label is the reference when it is a label (not a run id, previous or latest).
	Label   string
	Missing map[string]string // board → why it has no baseline, e.g. `no run labelled "nightly" before run 7`
	// Skipped says, per board, which newer runs the reference matched but were passed over because none of
	// their points was valid, e.g. "run 9: invalid (36 of 36 points invalid (first: background CPU 38 % (limit 8 %)))".
	Skipped map[string][]string
	// SkippedRuns are the ids of those runs, newest first, per board: what fleet regress reads to say why
	// (RegressionInput.Invalid).
	SkippedRuns map[string][]int64
}

// ResolveBaselines resolves ref for each board of judged (board → the run judged) to one baseline run per
// board; ResolveBaselineWindow documents the references.
func (db *DB) ResolveBaselines(ctx context.Context, ref string, judged map[string]int64) (Baselines, error) {
	return db.ResolveBaselineWindow(ctx, ref, 1, judged)
}

// ResolveBaselineWindow resolves a user's baseline reference for each board of judged (board → the run judged):
//
//   - a run id: that run, for the boards it has valid points of;
//   - "previous": each board's newest valid run that started before its judged run;
//   - "latest": each board's newest valid run other than its judged run (newer ones too);
//   - anything else is a label: each board's newest runs valid runs with that label that started before its
//     judged run (up to runs of them, newest first, returned oldest first), so a run is never its own baseline.
//
// A valid run of a board has at least one point of it that did not fail and was not judged invalid. The board
// run's own verdict does not count: it is the worst of its points', so one busy point among 36 would otherwise
// throw away 35 good ones (invalid points are left out when judging anyway). A run without a valid point is
// passed over for older ones, and Skipped says so. An unknown run id, or no baseline for any board, wraps
// ErrNotFound and names every board's reason, and ErrBaselineInvalid too when runs were passed over as invalid;
// Baselines is filled in either case.
func (db *DB) ResolveBaselineWindow(ctx context.Context, ref string, runs int, judged map[string]int64) (Baselines, error) {
	r := baselineResolver{db: db, ref: ref, runs: runs, bl: Baselines{Runs: map[string]int64{}, Window: map[string][]int64{},
		Missing: map[string]string{}, Skipped: map[string][]string{}, SkippedRuns: map[string][]int64{}}}
	if err := r.check(ctx, judged); err != nil {
		return r.bl, err
	}
	for _, board := range sortedKeys(judged) {
		if err := r.board(ctx, board, judged[board]); err != nil {
			return r.bl, fmt.Errorf("resolve baseline %q for %s in %s: %w", ref, board, db.Path, err)
		}
	}
	if len(r.bl.Runs) == 0 {
		return r.bl, r.notFound(judged)
	}
	return r.bl, nil
}

// baselineResolver resolves one baseline reference board by board, gathering Baselines and what the error
// says when no board has one.
type baselineResolver struct {
	db      *DB
	ref     string
	isLabel bool // ref is a label: a window of runs, not one run
	runs    int  // how many runs a label's window holds at most
	bl      Baselines
	invalid bool // a board's only matching runs were passed over as invalid (ErrBaselineInvalid)
	self    bool // a board's baseline was its judged run (ErrBaselineIsJudged)
}

// check refuses a reference that cannot be resolved at all: empty, a window of no runs, no boards, a judged run
// or a run id that does not exist, a vendor's reference table.
func (r *baselineResolver) check(ctx context.Context, judged map[string]int64) error {
	db, ref := r.db, r.ref
	if ref == "" {
		return fmt.Errorf("resolve baseline in %s: empty reference", db.Path)
	}
	if r.runs < 1 {
		return fmt.Errorf("resolve baseline %q in %s: a window of %d runs (want at least 1)", ref, db.Path, r.runs)
	}
	if len(judged) == 0 {
		return fmt.Errorf("resolve baseline %q in %s: no boards to judge: %w", ref, db.Path, ErrNotFound)
	}
	for _, board := range sortedKeys(judged) {
		if err := db.checkRun(ctx, judged[board]); err != nil {
			return fmt.Errorf("resolve baseline %q: judged run of %s: %w", ref, board, err)
		}
	}
	id, idErr := strconv.ParseInt(ref, 10, 64)
	r.isLabel = idErr != nil && ref != "previous" && ref != "latest"
	if r.isLabel {
		r.bl.Label = ref
	} else if idErr == nil {
		if err := db.checkRun(ctx, id); err != nil {
			return fmt.Errorf("resolve baseline %q: %w", ref, err)
		}
	}
	return db.checkBaselineNotReference(ctx, ref, r.isLabel)
}

// board resolves the reference for one board whose judged run is judged: its window, or why it has none, and
// the newer runs passed over as invalid.
func (r *baselineResolver) board(ctx context.Context, board string, judged int64) error {
	window, why, err := r.window(ctx, board, judged)
	if err != nil {
		return err
	}
	if len(window) == 0 {
		r.bl.Missing[board] = why
	} else {
		r.bl.Runs[board], r.bl.Window[board] = window[len(window)-1], window
	}
	var oldest int64
	if len(window) > 0 {
		oldest = window[0]
	}
	skipped, ids, err := r.db.skippedInvalid(ctx, r.ref, board, judged, oldest)
	if err != nil {
		return err
	}
	if len(skipped) > 0 {
		r.bl.Skipped[board], r.bl.SkippedRuns[board] = skipped, ids
		if len(window) == 0 {
			r.invalid = true
			r.bl.Missing[board] += fmt.Sprintf(": %d run(s) of it passed over as invalid", len(skipped))
		}
	}
	return nil
}

// window is a board's baseline runs, oldest first: a label's last runs valid runs before judged, else the one
// run the reference names. Empty, with why, when there is none; the judged run itself is none.
func (r *baselineResolver) window(ctx context.Context, board string, judged int64) ([]int64, string, error) {
	if r.isLabel {
		window, err := r.db.labelWindow(ctx, r.ref, board, judged, r.runs)
		if err == nil && len(window) == 0 {
			return nil, fmt.Sprintf("no run labelled %q with valid points of %s before run %d", r.ref, board, judged), nil
		}
		return window, "", err
	}
	run, why, err := r.db.baselineOf(ctx, r.ref, board, judged)
	if run != 0 && run == judged {
		// A run judged against itself passes every point: say so instead of passing.
		r.self = true
		return nil, fmt.Sprintf("run %d is the run judged: name an earlier run, a label or previous", run), err
	}
	if run != 0 {
		return []int64{run}, why, err
	}
	return nil, why, err
}

// notFound is the error of a reference no board has a baseline for: every board's reason, wrapping ErrNotFound,
// and ErrBaselineInvalid or ErrBaselineIsJudged when that is why.
func (r *baselineResolver) notFound(judged map[string]int64) error {
	var why []string
	for _, board := range sortedKeys(judged) {
		why = append(why, board+": "+r.bl.Missing[board])
	}
	if r.invalid {
		return fmt.Errorf("no board has a judgeable baseline %q in %s (%s): %w: %w", r.ref, r.db.Path, strings.Join(why, "; "),
			ErrBaselineInvalid, ErrNotFound)
	}
	if r.self {
		return fmt.Errorf("no board has baseline %q in %s (%s): %w: %w", r.ref, r.db.Path, strings.Join(why, "; "),
			ErrBaselineIsJudged, ErrNotFound)
	}
	return fmt.Errorf("no board has baseline %q in %s (%s): %w", r.ref, r.db.Path, strings.Join(why, "; "), ErrNotFound)
}

// baselineOf resolves a run id, previous or latest for one board whose judged run is judged: the baseline run,
// or 0 and why there is none.
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
	return 0, "", fmt.Errorf("baseline %q is a label: resolved by labelWindow", ref)
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
	valid        bool  // only board runs with at least one point that did not fail and is not invalid
}

// newestRuns returns, for each board, the newest run (by start time, then id) that stored points of that board
// and matches q.
func (db *DB) newestRuns(ctx context.Context, q runQuery) (map[string]int64, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT b.board, b.run_id FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE (?1 = '' OR b.board = ?1) AND (?2 = '' OR r.label = ?2) AND r.status <> 'reference'
			AND (?3 = 0 OR (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?3))
			AND (?4 = 0 OR r.id = ?4)
			AND EXISTS (SELECT 1 FROM point_counts c WHERE c.run_id = b.run_id AND c.board = b.board
				AND (?5 = 0 OR (c.failed = 0 AND c.validity != 'invalid')))
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

// checkBaselineNotReference refuses a baseline that is a vendor's table: a reference's label (with no measured
// run beside it) or a reference's run id. Without it, the label's measured runs being none, the answer was "no
// run labelled X with valid points", which sends the user looking for runs that were never meant to exist.
func (db *DB) checkBaselineNotReference(ctx context.Context, ref string, isLabel bool) error {
	var measured, reference int
	if isLabel {
		var err error
		if measured, reference, err = db.labelKinds(ctx, ref); err != nil {
			return err
		}
	} else if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE id = ? AND status = ?`, id,
			protocol.StatusReference).Scan(&reference); err != nil {
			return fmt.Errorf("resolve baseline %q in %s: %w", ref, db.Path, classify(err))
		}
	}
	if reference == 0 || measured > 0 {
		return nil
	}
	return fmt.Errorf("baseline %q in %s is a reference, imported with fleet import --reference: %w", ref, db.Path,
		ErrReferenceRun)
}
