package report

import (
	"fmt"
	"sort"
	"strings"
)

// markValidity is the footnote mark of a cell with points judged suspect or invalid.
const markValidity = "‡"

// markWrong is the mark of a cell with points whose path gave a wrong output.
const markWrong = "✗"

// validityMark is the mark of a cell whose sample has wrong outputs (✗), suspect or invalid points (‡), or "".
func validityMark(cell *Cell) string {
	m := ""
	if cell.Wrong > 0 {
		m = markWrong
	}
	if cell.Suspect > 0 || cell.Invalid > 0 {
		m += markValidity
	}
	return m
}

// verificationNotes is one line per sample with wrong outputs: they are no measurement of a working path.
func verificationNotes(samples []*Sample) []string {
	var notes []string
	seen := map[[3]string]bool{}
	for _, s := range samples {
		// one line per board, mode and algorithm: the verdict is the path's, not a block size's
		if k := [3]string{s.Key.Board, s.Key.Mode, s.Key.Algorithm}; s.Wrong > 0 && !seen[k] {
			seen[k] = true
			notes = append(notes, fmt.Sprintf("%s %s %s %s: wrong output: %s; not a result, whatever its speed",
				markWrong, s.Key.Board, s.Key.Mode, s.Key.Algorithm, strings.Join(s.WrongDetails, "; ")))
		}
	}
	return notes
}

// validityNotes says, per board, how many of the points shown were judged suspect or invalid and the first
// reasons: one footnote line per board, however many cells are marked.
func validityNotes(samples []*Sample) []string {
	type tally struct {
		points, suspect, invalid int
		reasons                  []string
	}
	boards := map[string]*tally{}
	for _, s := range samples {
		t := boards[s.Key.Board]
		if t == nil {
			t = &tally{}
			boards[s.Key.Board] = t
		}
		t.points += len(s.Values)
		t.suspect += s.Suspect
		t.invalid += s.Invalid
		for _, r := range append(append([]string{}, s.InvalidReasons...), s.SuspectReasons...) {
			if len(t.reasons) < 2 && !contains(t.reasons, r) {
				t.reasons = append(t.reasons, r)
			}
		}
	}
	names := make([]string, 0, len(boards))
	for b := range boards {
		names = append(names, b)
	}
	sort.Strings(names)
	var notes []string
	for _, b := range names {
		t := boards[b]
		if t.suspect+t.invalid == 0 {
			continue
		}
		var parts []string
		if t.invalid > 0 {
			parts = append(parts, fmt.Sprintf("%d invalid", t.invalid))
		}
		if t.suspect > 0 {
			parts = append(parts, fmt.Sprintf("%d suspect", t.suspect))
		}
		notes = append(notes, fmt.Sprintf("%s %s: %s of %d points (%s); regress never judges invalid points",
			markValidity, b, strings.Join(parts, ", "), t.points, strings.Join(t.reasons, "; ")))
	}
	return notes
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
