package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fleetlab/fleet/store"
)

// TestChangesBadInput: histories that are empty, too short, gappy, non-positive or very long give clear notes,
// never a panic.
func TestChangesBadInput(t *testing.T) {
	step := steps([]int{17}, []float64{-0.12})
	t.Run("empty", func(t *testing.T) {
		r := Changes(&store.Histories{}, ChangeOptions{})
		if len(r.Changes) != 0 || r.Series != 0 {
			t.Errorf("empty history: %+v", r)
		}
		wantText(t, r, "no change in 0 series")
	})
	t.Run("one run", func(t *testing.T) {
		r := Changes(synthHistories(synthSeries(1, 1, 3, 400e6, 0.02, step)), ChangeOptions{})
		if len(r.Changes) != 0 || r.Short != 1 {
			t.Errorf("one run: %d changes, %d short; want 0, 1", len(r.Changes), r.Short)
		}
		wantText(t, r, "1 series with fewer than 6 runs not searched")
	})
	t.Run("gaps", func(t *testing.T) {
		// the board missed every fifth night: the step is still found at its run
		h := synthHistories(synthSeries(1, 40, 1, 400e6, 0.02, step))
		var kept []store.Night
		for _, n := range h.Series[0].Nights {
			if n.RunID%5 != 0 {
				kept = append(kept, n)
			}
		}
		h.Series[0].Nights = kept
		r := Changes(h, ChangeOptions{})
		if len(r.Changes) != 1 || r.Changes[0].Run != 18 || r.Changes[0].PreviousRun != 17 {
			t.Fatalf("gaps: changes %+v, want one at run 18 after run 17", r.Changes)
		}
	})
	t.Run("gap at the change", func(t *testing.T) {
		// run 18, the first after the step, is missing: the change starts at run 19, after run 17
		h := synthHistories(synthSeries(1, 40, 1, 400e6, 0.02, step))
		ns := h.Series[0].Nights
		h.Series[0].Nights = append(append([]store.Night{}, ns[:17]...), ns[18:]...)
		r := Changes(h, ChangeOptions{})
		if len(r.Changes) != 1 || r.Changes[0].Run != 19 || r.Changes[0].PreviousRun != 17 {
			t.Fatalf("changes %+v, want one at run 19 after run 17", r.Changes)
		}
	})
	t.Run("zero, negative and not finite values", func(t *testing.T) {
		nights := synthSeries(1, 40, 2, 400e6, 0.02, step)
		nights[3][0], nights[9][1], nights[25][0] = 0, -5e6, math.Inf(1)
		nights[30] = []float64{0, 0} // a night with nothing usable is left out entirely
		r := Changes(synthHistories(nights), ChangeOptions{})
		if len(r.Changes) != 1 || r.Changes[0].Run != 18 {
			t.Errorf("changes %+v, want one at run 18", r.Changes)
		}
		wantText(t, r, "5 point(s) with a throughput of zero, below zero or not finite left out")
	})
	t.Run("all zero", func(t *testing.T) {
		// 40 runs are not "too few": the series is counted as not searched for its unusable runs
		r := Changes(synthHistories(synthSeries(1, 40, 1, 0, 0.02, step)), ChangeOptions{})
		if len(r.Changes) != 0 || r.Short != 0 || r.Searched != 0 || len(r.LeftOut) != 1 ||
			r.LeftOut[0].Reason != LeftOutFailed || r.LeftOut[0].FailedRuns != 40 {
			t.Errorf("all zero: %d changes, %d short, %d searched, left out %+v", len(r.Changes), r.Short, r.Searched, r.LeftOut)
		}
		wantText(t, r, "am64x: 1 series not searched: all 40 runs failed")
	})
	t.Run("constant", func(t *testing.T) {
		r := Changes(synthHistories(synthSeries(1, 40, 1, 400e6, 0, steps(nil, nil))), ChangeOptions{})
		if len(r.Changes) != 0 {
			t.Errorf("a constant series changed: %+v", r.Changes)
		}
	})
	t.Run("10,000 runs", func(t *testing.T) {
		long := steps([]int{9000}, []float64{-0.12})
		h := synthHistories(synthSeries(1, 10000, 1, 400e6, 0.02, long))
		r := Changes(h, ChangeOptions{})
		if len(r.Changes) != 1 || r.Changes[0].Run < 9000 || r.Changes[0].Run > 9002 {
			t.Errorf("10,000 runs: changes %+v, want one at run 9001 ±1", r.Changes)
		}
	})
	t.Run("bounded history", func(t *testing.T) {
		h := synthHistories(synthSeries(1, 40, 1, 400e6, 0.02, step))
		h.Boards["am64x"] = store.HistoryBoard{TotalRuns: 10000, ReadRuns: 40}
		wantText(t, Changes(h, ChangeOptions{MaxRuns: 40}), "am64x: only its newest 40 of 10000 runs were searched")
	})
}

func wantText(t *testing.T, r *ChangeReport, want string) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteChanges(&b, r, "text"); err != nil {
		t.Fatal(err)
	}
	// The text folds its notes at 100 columns: the words are compared, not where the lines break.
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if !strings.Contains(words(b.String()), words(want)) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > TextWidth {
			t.Errorf("text line of %d columns, over %d: %q", n, TextWidth, l)
		}
	}
}
