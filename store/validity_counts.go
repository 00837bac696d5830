package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// Judged counts a run's or a board run's points by the verdict they were given, with the causes of the
// verdicts (validity.Cause of each reason, in order of first appearance), so that every front end can say "ok —
// 24 of 24 points invalid: background CPU" instead of a bare "ok". Points not judged (imports, older agents) are
// Points of the run or board run less OK, Suspect and Invalid.
type Judged struct {
	OK, Invalid, Suspect         int
	InvalidCauses, SuspectCauses []string
}

// Any reports whether some point was judged suspect or invalid.
func (j Judged) Any() bool { return j.Invalid+j.Suspect > 0 }

func (j *Judged) addCauses(verdict string, reasons []string) {
	switch verdict {
	case protocol.ValidityInvalid:
		j.InvalidCauses = addCauses(j.InvalidCauses, reasons)
	case protocol.ValiditySuspect:
		j.SuspectCauses = addCauses(j.SuspectCauses, reasons)
	}
}

func addCauses(list, reasons []string) []string {
	for _, c := range validity.Causes(reasons) {
		found := false
		for _, l := range list {
			found = found || l == c
		}
		if !found {
			list = append(list, c)
		}
	}
	return list
}

// judgedPoints counts the points of runs by run, board and verdict, with the distinct causes of the suspect and
// invalid ones, from point_counts (a few rows per board run, whatever its number of points).
func (db *DB) judgedPoints(ctx context.Context, runIDs []int64) (map[int64]map[string]*Judged, error) {
	out := map[int64]map[string]*Judged{}
	get := func(id int64, board string) *Judged {
		if out[id] == nil {
			out[id] = map[string]*Judged{}
		}
		j := out[id][board]
		if j == nil {
			j = &Judged{}
			out[id][board] = j
		}
		return j
	}
	for rest := runIDs; len(rest) > 0; {
		n := min(len(rest), 500)
		var args []any
		for _, id := range rest[:n] {
			args = append(args, id)
		}
		in := `run_id IN (` + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + `)`
		rest = rest[n:]
		rows, err := db.db.QueryContext(ctx, `SELECT run_id, board, validity, validity_reasons, points FROM point_counts
			WHERE `+in+` ORDER BY id`, args...)
		if err != nil {
			return nil, fmt.Errorf("count judged points in %s: %w", db.Path, classify(err))
		}
		for rows.Next() {
			var id int64
			var board, verdict, reasons string
			var count int
			if err := rows.Scan(&id, &board, &verdict, &reasons, &count); err != nil {
				rows.Close()
				return nil, fmt.Errorf("count judged points in %s: %w", db.Path, err)
			}
			j := get(id, board)
			switch verdict {
			case protocol.ValidityOK:
				j.OK += count
			case protocol.ValiditySuspect:
				j.Suspect += count
			case protocol.ValidityInvalid:
				j.Invalid += count
			default:
				continue
			}
			var rs []string
			if reasons != "" {
				if err := json.Unmarshal([]byte(reasons), &rs); err != nil {
					rows.Close()
					return nil, fmt.Errorf("read validity reasons of run %d: %w", id, err)
				}
			}
			j.addCauses(verdict, rs)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("count judged points in %s: %w", db.Path, classify(err))
		}
	}
	return out, nil
}

// runJudged sums a run's boards, in board order.
func runJudged(boards map[string]*Judged, names []string) Judged {
	var sum Judged
	for _, b := range names {
		j := boards[b]
		if j == nil {
			continue
		}
		sum.OK += j.OK
		sum.Invalid += j.Invalid
		sum.Suspect += j.Suspect
		sum.InvalidCauses = mergeCauses(sum.InvalidCauses, j.InvalidCauses)
		sum.SuspectCauses = mergeCauses(sum.SuspectCauses, j.SuspectCauses)
	}
	return sum
}

func mergeCauses(list, more []string) []string {
	for _, c := range more {
		found := false
		for _, l := range list {
			found = found || l == c
		}
		if !found {
			list = append(list, c)
		}
	}
	return list
}

// pointCount is one row of point_counts: the points of a board run with one verdict and one list of reasons.
type pointCount struct {
	board, validity, reasons string
	failed                   bool
	points                   int
}

// countPoints adds points to the counts of their board runs by verdict, reasons and failure (point_counts), in the
// order the pairs first appear, so the run listings read a few rows per run instead of every point.
func (t *txWriter) countPoints(points []boardPoint) error {
	var counts []pointCount
	for i := range points {
		bp := &points[i]
		reasons, _ := jsonList(bp.p.ValidityReasons).(string) // NULL (no reasons) is ''
		found := false
		for j := range counts {
			c := &counts[j]
			if c.board == bp.board && c.validity == bp.p.Validity && c.reasons == reasons && c.failed == bp.p.Failed {
				c.points++
				found = true
				break
			}
		}
		if !found {
			counts = append(counts, pointCount{bp.board, bp.p.Validity, reasons, bp.p.Failed, 1})
		}
	}
	for _, c := range counts {
		if err := t.exec(`INSERT INTO point_counts (run_id, board, validity, validity_reasons, failed, points)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (run_id, board, validity, validity_reasons, failed)
			DO UPDATE SET points = point_counts.points + excluded.points`,
			t.w.id, c.board, c.validity, c.reasons, c.failed, c.points); err != nil {
			return fmt.Errorf("count the points of %s: %w", c.board, err)
		}
	}
	return nil
}
