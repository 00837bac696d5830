package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fleetlab/fleet/store"
)

// A comparison of "latest" sets each board's newest run beside the others', and those runs may be days apart or
// have measured different things. A reader must see which run and date each table is from, and a board whose
// run measured nothing the filters keep must be said, with what its run did measure, not left out unseen.

// BoardRun is a run a board's figures in a comparison come from.
type BoardRun struct {
	Board   string    `json:"board"`
	Run     int64     `json:"run"`
	Label   string    `json:"label,omitempty"`
	Started time.Time `json:"started"`
}

// String is "run 2 (nightly), 2025-03-02 02:00 UTC".
func (r BoardRun) String() string {
	s := fmt.Sprintf("run %d", r.Run)
	if r.Label != "" {
		s += " (" + r.Label + ")"
	}
	if !r.Started.IsZero() {
		s += ", " + r.Started.UTC().Format(timeLayout) + " UTC"
	}
	return s
}

// Absent is a board of the selection none of whose points the filters keep.
type Absent struct {
	Board      string     `json:"board"`
	Runs       []BoardRun `json:"runs,omitempty"`       // what the selection holds of it; none: it has no points at all
	Algorithms []string   `json:"algorithms,omitempty"` // what those runs measured
	Modes      []string   `json:"modes,omitempty"`
}

// String says why the board is not shown: "imx6q: not shown: its run 2, 2025-03-02 02:00 UTC measured sha256
// (modes cpu, soft), none of the algorithms asked for (aes-128-cbc)".
func (a Absent) String(opts CompareOptions) string {
	if len(a.Runs) == 0 {
		return fmt.Sprintf("%s: not shown: the selection has no point of it (fleet runs lists each board's runs)", a.Board)
	}
	runs := make([]string, len(a.Runs))
	for i, r := range a.Runs {
		runs[i] = r.String()
	}
	s := fmt.Sprintf("%s: not shown: its %s measured %s (modes %s)", a.Board, strings.Join(runs, "; "),
		strings.Join(a.Algorithms, ", "), strings.Join(a.Modes, ", "))
	var asked []string
	if len(opts.Algorithms) > 0 {
		asked = append(asked, "algorithms "+strings.Join(opts.Algorithms, ", "))
	}
	if len(opts.Modes) > 0 {
		asked = append(asked, "modes "+strings.Join(opts.Modes, ", "))
	}
	if len(asked) > 0 {
		s += ", none of it in the " + strings.Join(asked, " and ") + " asked for"
	}
	return s + "; --run ID picks another run"
}

// boardRuns lists, per board of ms, the runs its points come from, by board and run.
func boardRuns(ms []store.Measurement) []BoardRun {
	type key struct {
		board string
		run   int64
	}
	seen := map[key]bool{}
	var out []BoardRun
	for _, m := range ms {
		k := key{m.Board, m.RunID}
		if m.RunID == 0 {
			continue // not read from a store: no run to name
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, BoardRun{Board: m.Board, Run: m.RunID, Label: m.RunLabel, Started: m.RunStarted})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Board != out[j].Board {
			return out[i].Board < out[j].Board
		}
		return out[i].Run < out[j].Run
	})
	return out
}

// absentBoards are the boards of all (or named in opts.Boards) of which kept has no point, with what all holds
// of them.
func absentBoards(all, kept []store.Measurement, opts CompareOptions) []Absent {
	shown := map[string]bool{}
	for _, m := range kept {
		shown[strings.ToLower(m.Board)] = true
	}
	var boards []string
	byBoard := map[string][]store.Measurement{}
	for _, m := range all {
		if !slices.Contains(boards, m.Board) {
			boards = append(boards, m.Board)
		}
		byBoard[m.Board] = append(byBoard[m.Board], m)
	}
	sort.Strings(boards)
	if len(opts.Boards) > 0 {
		boards = nil
		for _, b := range opts.Boards {
			for _, have := range sortedKeys(byBoard) {
				if strings.EqualFold(have, b) {
					b = have
				}
			}
			boards = append(boards, b)
		}
	}
	var out []Absent
	for _, b := range boards {
		if shown[strings.ToLower(b)] {
			continue
		}
		a := Absent{Board: b, Runs: boardRuns(byBoard[b])}
		for _, m := range byBoard[b] {
			if !slices.Contains(a.Algorithms, m.Algorithm) {
				a.Algorithms = append(a.Algorithms, m.Algorithm)
			}
			if !slices.Contains(a.Modes, m.Mode) {
				a.Modes = append(a.Modes, m.Mode)
			}
		}
		sort.Strings(a.Algorithms)
		sort.Slice(a.Modes, func(i, j int) bool { return modeLess(a.Modes[i], a.Modes[j]) })
		out = append(out, a)
	}
	return out
}

func sortedKeys(m map[string][]store.Measurement) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// runsOf is the text of the runs a board's figures come from: "run 2 (nightly), 2025-03-02 02:00 UTC".
func (c *Comparison) runsOf(board string) string {
	var rs []string
	for _, r := range c.Runs {
		if r.Board == board {
			rs = append(rs, r.String())
		}
	}
	return strings.Join(rs, "; ")
}

// runsSuffix is ", run 2, 2025-03-02 02:00 UTC" after a board's name in a table title; "" when the runs are
// not known (points not read from a store).
func (c *Comparison) runsSuffix(board string) string {
	if r := c.runsOf(board); r != "" {
		return ", " + r
	}
	return ""
}

// runsNote names the run each board's figures come from; "" when they all come from one run and !evenOne (a
// board-against-board table, under the boards' own tables that already name it).
func (c *Comparison) runsNote(boards []string, evenOne bool) string {
	ids := map[int64]bool{}
	for _, r := range c.Runs {
		if slices.Contains(boards, r.Board) {
			ids[r.Run] = true
		}
	}
	if len(ids) < 2 && !evenOne {
		return ""
	}
	var parts []string
	for _, b := range boards {
		if r := c.runsOf(b); r != "" {
			parts = append(parts, b+" "+r)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "runs: " + strings.Join(parts, "; ")
}
