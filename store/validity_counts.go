package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// Judged counts a run's or a board run's points by the verdict they were given, with the causes of the
// verdicts (validity.Cause of each reason, in order of first appearance), so that every front end can say "ok —
// 24 of 24 points invalid: background CPU" instead of a bare "ok". Points judged ok or not judged (imports,
// older agents) are not counted: Points of the run or board run is the total.
type Judged struct {
	Invalid, Suspect             int
	InvalidCauses, SuspectCauses []string
}

// Any reports whether some point was judged suspect or invalid.
func (j Judged) Any() bool { return j.Invalid+j.Suspect > 0 }

func (j *Judged) add(verdict string, reasons []string) {
	switch verdict {
	case protocol.ValidityInvalid:
		j.Invalid++
		j.InvalidCauses = addCauses(j.InvalidCauses, reasons)
	case protocol.ValiditySuspect:
		j.Suspect++
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

// judgedPoints counts the suspect and invalid points of runs by run and board. Only those points are read
// (a quiet lab's runs cost one empty index range each).
func (db *DB) judgedPoints(ctx context.Context, runIDs []int64) (map[int64]map[string]*Judged, error) {
	out := map[int64]map[string]*Judged{}
	for rest := runIDs; len(rest) > 0; {
		n := min(len(rest), 500)
		args := []any{protocol.ValidityInvalid, protocol.ValiditySuspect}
		for _, id := range rest[:n] {
			args = append(args, id)
		}
		rest = rest[n:]
		rows, err := db.db.QueryContext(ctx, `SELECT run_id, board, validity, validity_reasons FROM measurements
			WHERE validity IN (?, ?) AND run_id IN (`+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+`)
			ORDER BY id`, args...)
		if err != nil {
			return nil, fmt.Errorf("count judged points in %s: %w", db.Path, classify(err))
		}
		for rows.Next() {
			var id int64
			var board, verdict string
			var reasons sql.NullString
			if err := rows.Scan(&id, &board, &verdict, &reasons); err != nil {
				rows.Close()
				return nil, fmt.Errorf("count judged points in %s: %w", db.Path, err)
			}
			var rs []string
			if reasons.Valid && reasons.String != "" {
				if err := json.Unmarshal([]byte(reasons.String), &rs); err != nil {
					rows.Close()
					return nil, fmt.Errorf("count judged points of run %d: validity reasons: %w", id, err)
				}
			}
			if out[id] == nil {
				out[id] = map[string]*Judged{}
			}
			j := out[id][board]
			if j == nil {
				j = &Judged{}
				out[id][board] = j
			}
			j.add(verdict, rs)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return nil, fmt.Errorf("count judged points in %s: %w", db.Path, classify(err))
		}
		rows.Close()
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
