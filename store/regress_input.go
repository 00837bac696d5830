package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/fleetlab/fleet/protocol"
)

// RegressionInput is what a regression check reads besides the judged points: the baseline run of each judged
// board (and why the others have none), the baseline points, and the facts of both sides, by board.
type RegressionInput struct {
	Baselines
	Base         []Measurement
	BaseFacts    map[string]*protocol.Facts
	CurFacts     map[string]*protocol.Facts
	FailedBoards int // judged boards whose part of the judged run failed or stopped partway
	// Invalid are the points (with their evidence) of the runs passed over as invalid for the boards that have
	// no baseline because of them (Missing and SkippedRuns): what made every run of the baseline unjudgeable,
	// so that regress can say how busy the board was, not only that it was.
	Invalid []Measurement
}

// RunsByBoard maps each board of ms to the run its points come from (the last one, when several).
func RunsByBoard(ms []Measurement) map[string]int64 {
	out := map[string]int64{}
	for _, m := range ms {
		out[m.Board] = m.RunID
	}
	return out
}

// ReadRegressionInput is ReadRegressionWindow with a labelled baseline's window of DefaultBaselineRuns runs.
func (db *DB) ReadRegressionInput(ctx context.Context, ref string, cur []Measurement) (RegressionInput, error) {
	return db.ReadRegressionWindow(ctx, ref, DefaultBaselineRuns, cur)
}

// ReadRegressionWindow resolves ref (see ResolveBaselineWindow; a label pools its last runs valid runs per board)
// for the boards of the judged points cur and reads what `fleet regress` and the dashboard judge them against:
// the points of every baseline run, oldest run first (only what a regression check judges by:
// Filter.ForRegression), and the facts of each board's newest baseline run. Errors are ResolveBaselineWindow's.
func (db *DB) ReadRegressionWindow(ctx context.Context, ref string, runs int, cur []Measurement) (in RegressionInput, err error) {
	curRuns := RunsByBoard(cur)
	in = RegressionInput{BaseFacts: map[string]*protocol.Facts{}, CurFacts: map[string]*protocol.Facts{}}
	for _, board := range sortedKeys(curRuns) {
		if _, st, err := db.boardFacts(ctx, curRuns[board], board); err != nil {
			return in, err
		} else if st == protocol.StatusReference {
			return in, fmt.Errorf("judge run %d: %w", curRuns[board], ErrReferenceRun)
		}
	}
	in.Baselines, err = db.ResolveBaselineWindow(ctx, ref, runs, curRuns)
	if err == nil || errors.Is(err, ErrBaselineInvalid) {
		if rerr := db.readSkipped(ctx, &in); rerr != nil {
			return in, rerr
		}
	}
	if err != nil {
		return in, err
	}
	var base [][]Measurement // joined once at the end: thousands of 500-byte points
	defer func() { in.Base = slices.Concat(base...) }()
	for _, board := range sortedKeys(in.Runs) {
		id := in.Runs[board]
		for _, w := range in.Window[board] {
			ms, err := db.Measurements(ctx, Filter{RunID: w, Board: board, ForRegression: true})
			if err != nil {
				return in, err
			}
			base = append(base, ms)
		}
		if in.BaseFacts[board], _, err = db.boardFacts(ctx, id, board); err != nil {
			return in, err
		}
		// Only judged boards count as failed; the others are listed as "no baseline".
		var st protocol.Status
		if in.CurFacts[board], st, err = db.boardFacts(ctx, curRuns[board], board); err != nil {
			return in, err
		}
		if st == protocol.StatusFailed || st == protocol.StatusPartial {
			in.FailedBoards++
		}
	}
	return in, nil
}

// readSkipped reads into in.Invalid the points of the runs passed over as invalid for each board without a
// baseline.
func (db *DB) readSkipped(ctx context.Context, in *RegressionInput) error {
	for _, board := range sortedKeysOfLists(in.SkippedRuns) {
		if _, missing := in.Missing[board]; !missing {
			continue
		}
		for _, id := range in.SkippedRuns[board] {
			ms, err := db.Measurements(ctx, Filter{RunID: id, Board: board})
			if err != nil {
				return fmt.Errorf("read the invalid runs of %s: %w", board, err)
			}
			in.Invalid = append(in.Invalid, ms...)
		}
	}
	return nil
}

// boardFacts is one board's facts and status in a run; nil and "" when the run has no such board.
func (db *DB) boardFacts(ctx context.Context, runID int64, board string) (*protocol.Facts, protocol.Status, error) {
	var facts sql.NullString
	var st protocol.Status
	err := db.db.QueryRowContext(ctx, `SELECT facts, status FROM board_runs WHERE run_id = ? AND board = ?`, runID, board).
		Scan(&facts, &st)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read facts of %s in run %d: %w", board, runID, classify(err))
	}
	if !facts.Valid {
		return nil, st, nil
	}
	f := new(protocol.Facts)
	if err := json.Unmarshal([]byte(facts.String), f); err != nil {
		return nil, "", fmt.Errorf("read facts of %s in run %d: %w", board, runID, err)
	}
	return f, st, nil
}
