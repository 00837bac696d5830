package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/store"
)

// invalidHistories is synthHistories whose nights listed in invalid have every point judged invalid (moved to
// InvalidValues, with a background CPU reason from 60 to 90 %).
func invalidHistories(invalid func(night int) bool, series ...[][]float64) *store.Histories {
	h := synthHistories(series...)
	for k := range h.Series {
		for i := range h.Series[k].Nights {
			n := &h.Series[k].Nights[i]
			if !invalid(i) {
				continue
			}
			n.InvalidValues, n.Values, n.Invalid = n.Values, nil, len(n.Values)
			n.InvalidReasons = []string{fmt.Sprintf("background CPU %d %% (limit 8 %%)", 60+6*(i%6))}
		}
	}
	return h
}

// TestChangesAllInvalid: 12 series of 6 runs, every point invalid (background CPU 60–90 %), with a −86 % step:
// before, they were "12 series with fewer than 6 runs not searched" and JSON was []. Now they are counted as
// invalid with the cause and what to do, in the text and in the JSON notes, and the step is a not-judged
// change, never a verdict.
func TestChangesAllInvalid(t *testing.T) {
	step := steps([]int{3}, []float64{-0.86})
	var series [][][]float64
	for k := range 12 {
		series = append(series, synthSeries(uint64(k+1), 6, 3, 400e6, 0.02, step))
	}
	r := Changes(invalidHistories(func(int) bool { return true }, series...), ChangeOptions{})
	if len(r.Changes) != 0 || r.Short != 0 || r.Searched != 0 || len(r.Drops(0.05)) != 0 {
		t.Errorf("changes %d, short %d, searched %d, drops %d; want 0 of each", len(r.Changes), r.Short, r.Searched, len(r.Drops(0.05)))
	}
	if len(r.LeftOut) != 1 {
		t.Fatalf("left out %+v, want one group", r.LeftOut)
	}
	l := r.LeftOut[0]
	if l.Reason != LeftOutInvalid || l.Series != 12 || l.Runs != 6 || l.InvalidRuns != 6 ||
		strings.Join(l.Causes, "; ") != "background CPU 60–90 %" {
		t.Errorf("left out %+v, want 12 invalid series of 6 runs, all invalid, background CPU 60–90 %%", l)
	}
	if len(r.NotJudged) != 12 {
		t.Fatalf("%d not-judged steps, want 12 (one per series): %+v", len(r.NotJudged), r.NotJudged)
	}
	for _, c := range r.NotJudged {
		if c.Run != 4 || math.Abs(c.Delta+0.86) > 0.03 || c.NotJudged != "invalid: background CPU 60–90 %" {
			t.Errorf("not judged %s at run %d, %s, %q; want run 4, −86 %%, invalid: background CPU 60–90 %%",
				c.Key().Label(), c.Run, formatChange(c.Delta), c.NotJudged)
		}
	}
	note := "am64x: 12 series not searched: all 6 runs invalid: background CPU 60–90 %; a change needs 3 usable runs on each side: " +
		"run on a quiet board, wait for one with fleet run --quiet-wait 60s (quiet_wait in [boards.am64x.validity] in " +
		"boards.toml), or set the limits there (background_peak_pct, background_avg_pct)"
	wantText(t, r, note)
	wantText(t, r, "no change in the 0 series searched of 12")
	wantText(t, r, "not judged: am64x afalg aes-128-cbc 16 B −8")
	if txt := changesText(t, r, "text"); strings.Contains(txt, "fewer than 6 runs") {
		t.Errorf("series of 6 runs said to have fewer:\n%s", txt)
	}

	var j ChangesJSON
	if err := json.Unmarshal([]byte(changesText(t, r, "json")), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Changes) != 0 || len(j.NotJudged) != 12 || j.Series != 12 || j.Searched != 0 || len(j.LeftOut) != 1 ||
		j.LeftOut[0].Note != note || !containsString(j.Notes, note) {
		t.Errorf("JSON: %d changes, %d not judged, %d/%d searched, left out %+v, notes %q", len(j.Changes), len(j.NotJudged),
			j.Searched, j.Series, j.LeftOut, j.Notes)
	}
}

// TestChangesSomeRunsInvalid: a searched series with invalid runs says how many were left out and why; a step
// that shows only with the invalid runs counted is not judged, and a judged change is not repeated as one.
func TestChangesSomeRunsInvalid(t *testing.T) {
	// 20 runs with a −12 % step at night 10 (valid), and nights 15–17 invalid and 60 % slower: a busy board.
	nights := synthSeries(1, 20, 2, 400e6, 0.01, func(i int) float64 {
		switch {
		case i >= 15 && i <= 17:
			return 0.88 * 0.4
		case i >= 10:
			return 0.88
		}
		return 1
	})
	r := Changes(invalidHistories(func(i int) bool { return i >= 15 && i <= 17 }, nights), ChangeOptions{})
	if len(r.Changes) != 1 || r.Changes[0].Run != 11 {
		t.Fatalf("judged changes %+v, want one at run 11", r.Changes)
	}
	if len(r.LeftOut) != 1 || r.LeftOut[0].Reason != LeftOutRuns || r.LeftOut[0].InvalidRuns != 3 {
		t.Errorf("left out %+v, want 3 invalid runs of a searched series", r.LeftOut)
	}
	wantText(t, r, "am64x: 1 searched series had 3 run(s) whose points were all invalid left out; invalid: background CPU 78–90 %")
	for _, c := range r.NotJudged {
		if c.Run == 11 || c.Run == 10 || c.Run == 12 {
			t.Errorf("the judged change at run 11 is repeated as not judged: %+v", c)
		}
	}
	if len(r.NotJudged) == 0 {
		t.Errorf("the pulse of the invalid runs 16–18 is not shown as not judged")
	}
}

func TestValidityCauses(t *testing.T) {
	for _, tc := range []struct {
		reasons []string
		want    string
	}{
		{[]string{"background CPU 72 % (limit 8 %)"}, "background CPU 72 %"},
		{[]string{"background CPU 72.5 % (limit 8 %)", "mean background CPU 61 % over 24 points (suspect above 2 %)",
			"governor powersave (policy0)"}, "background CPU 61–72.5 %; governor powersave"},
		{[]string{"throttled: 22 % of the time below 1000 MHz", "steal 12 % (limit 8 %)"}, "throttled 22 %; steal time 12 %"},
		{[]string{"cpu-thermal (soc) at 85 °C, trip point 80 °C", "odd reason"}, "temperature; odd reason"},
		{nil, ""},
	} {
		if got := strings.Join(validityCauses(tc.reasons), "; "); got != tc.want {
			t.Errorf("validityCauses(%q) = %q, want %q", tc.reasons, got, tc.want)
		}
	}
}

func changesText(t *testing.T, r *ChangeReport, format string) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteChanges(&b, r, format); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func containsString(ss []string, s string) bool {
	for _, v := range ss {
		if v == s {
			return true
		}
	}
	return false
}

// TestHistoryChartMarksNotJudged: a history whose every point is invalid draws its −86 % step as a grey
// "not judged: invalid" mark (never a "change" mark) and lists it as not judged under the chart.
func TestHistoryChartMarksNotJudged(t *testing.T) {
	nights := synthSeries(1, 6, 3, 400e6, 0.02, steps([]int{3}, []float64{-0.86}))
	h := invalidHistories(func(int) bool { return true }, nights)
	var ms []store.Measurement
	for i, vs := range nights {
		for r, v := range vs {
			m := store.Measurement{RunID: int64(i + 1), RunLabel: "nightly", RunStarted: synthStart.AddDate(0, 0, i), Board: "am64x"}
			m.Mode, m.Algorithm, m.Op, m.BlockSize, m.Threads, m.Repeat = "afalg", "aes-128-cbc", "encrypt", 16, 1, r
			m.BytesPerSec, m.Count, m.Seconds, m.Timing, m.WallS = v, v/16, 1, "wall", 1
			m.Validity, m.ValidityReasons = "invalid", h.Series[0].Nights[i].InvalidReasons
			ms = append(ms, m)
		}
	}
	key := store.SeriesKey{Board: "am64x", Mode: "afalg", Algorithm: "aes-128-cbc", BlockSize: 16}
	page, err := HistoryHTML("am64x afalg aes-128-cbc 16 B", ms, nil, nil,
		HistoryHTMLOptions{Changes: SeriesChanges(Changes(h, ChangeOptions{}).Marks(), key)})
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if n := strings.Count(s, `<line x1=`); n == 0 {
		t.Fatalf("no chart:\n%s", s)
	}
	if got := strings.Count(s, `class="notjudged" stroke`); got != 1 {
		t.Errorf("%d not-judged marks, want 1:\n%s", got, s)
	}
	if strings.Contains(s, `class="change"`) {
		t.Errorf("an invalid history has a judged change mark:\n%s", s)
	}
	for _, want := range []string{"#1 not judged: invalid −8", `<li class="notjudged"><b>not judged</b> (invalid: background CPU`} {
		if !strings.Contains(s, want) {
			t.Errorf("history lacks %q:\n%s", want, s)
		}
	}
}
