package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
	"github.com/fleetlab/fleet/validity"
)

// Sides of an InvalidCause.
const (
	InvalidRun      = "run"      // the judged run's points of the series were all invalid
	InvalidBaseline = "baseline" // every run the baseline matched, or every baseline point of some series
)

// InvalidCause says why series of a board went unjudged for its state: whose points, how many, what the
// evidence showed and what to do. Exit 4 with "3 series not judged" told a CI job nothing it could act on.
type InvalidCause struct {
	Board  string   `json:"board"`
	Side   string   `json:"side"`   // InvalidRun or InvalidBaseline
	Runs   []int64  `json:"runs"`   // the runs whose points were invalid, oldest first
	Points int      `json:"points"` // invalid points
	Of     int      `json:"of"`     // points of the board in those runs
	Series int      `json:"series"` // series not judged (0: the whole board)
	Causes []string `json:"causes"` // validity.Cause of the reasons: "background CPU", "throttled"
	// BackgroundMinPct and BackgroundMaxPct bound the background CPU the invalid points saw, where their evidence
	// was read (fleet regress reads it; the dashboard's lighter read does not).
	BackgroundMinPct *float64 `json:"background_min_pct,omitempty"`
	BackgroundMaxPct *float64 `json:"background_max_pct,omitempty"`
	Text             string   `json:"text"`   // "all 6 runs of the baseline invalid (36 of 36 points): background CPU 60–90 %"
	Advice           string   `json:"advice"` // what to do, naming the flags and boards.toml keys that exist
}

// String is "local not judged: TEXT; ADVICE".
func (c InvalidCause) String() string { return c.Board + " not judged: " + c.Text + "; " + c.Advice }

// HasInvalid reports whether any series was left unjudged because the run's or the baseline's points were
// invalid.
func (r *Regression) HasInvalid() bool { return len(r.InvalidReasons()) > 0 }

// InvalidReasons says why series were not judged for the boards' state, one line per board and side, with how
// many points, the causes and what to do. Empty when none was.
func (r *Regression) InvalidReasons() []string {
	out := make([]string, 0, len(r.Invalid))
	for _, c := range r.Invalid {
		out = append(out, c.String())
	}
	return out
}

// invalidCauses gathers what left series unjudged: the run's invalid points (curInvalid, beside the valid cur)
// of the rows not judged, the baseline's invalid points of the series with none valid, and the points of the
// runs passed over for the boards without a baseline.
func (r *Regression) invalidCauses(curInvalid, cur, baseInvalid, skipped []store.Measurement) []InvalidCause {
	var out []InvalidCause
	unjudged := map[string]int{} // board → rows not judged: invalid
	for _, row := range r.Rows {
		if row.Verdict == VerdictInvalid {
			unjudged[row.Board]++
		}
	}
	byBoard := func(ms []store.Measurement, keep func(store.Measurement) bool) map[string][]store.Measurement {
		g := map[string][]store.Measurement{}
		for _, m := range ms {
			if keep(m) {
				g[m.Board] = append(g[m.Board], m)
			}
		}
		return g
	}
	run := byBoard(curInvalid, func(m store.Measurement) bool { return unjudged[m.Board] > 0 })
	cur = slices.DeleteFunc(slices.Clone(cur), func(m store.Measurement) bool { return unjudged[m.Board] == 0 })
	total := map[string]int{}
	for _, m := range cur {
		total[m.Board]++
	}
	for _, board := range slices.Sorted(maps.Keys(run)) {
		c := summarizeInvalid(board, InvalidRun, run[board], len(run[board])+total[board])
		c.Series = unjudged[board]
		c.Text = fmt.Sprintf("%s: %d of %d points of %s invalid", plural(c.Series, "series"), c.Points, c.Of, runSpanOf(c.Runs)) + c.evidence()
		out = append(out, c)
	}
	series := map[SampleKey]bool{}
	for _, k := range r.BaselineInvalidSeries {
		series[k] = true
	}
	base := byBoard(baseInvalid, func(m store.Measurement) bool { return series[keyOf(m)] })
	for _, board := range slices.Sorted(maps.Keys(base)) {
		c := summarizeInvalid(board, InvalidBaseline, base[board], len(base[board]))
		for k := range series {
			if k.Board == board {
				c.Series++
			}
		}
		c.Text = fmt.Sprintf("%s: every baseline point invalid (%d points of %s)", plural(c.Series, "series"), c.Points,
			runSpanOf(c.Runs)) + c.evidence()
		out = append(out, c)
	}
	noBase := map[string]bool{}
	for _, nb := range r.NoBaseline {
		noBase[nb.Board] = nb.Invalid
	}
	whole := byBoard(skipped, func(m store.Measurement) bool { return noBase[m.Board] })
	for _, board := range slices.Sorted(maps.Keys(whole)) {
		ms := whole[board]
		c := summarizeInvalid(board, InvalidBaseline, slices.DeleteFunc(slices.Clone(ms), func(m store.Measurement) bool {
			return m.Validity != protocol.ValidityInvalid
		}), len(ms))
		what := fmt.Sprintf("all %s the baseline matched invalid", plural(len(c.Runs), "run"))
		if len(c.Runs) == 1 {
			what = fmt.Sprintf("the one run the baseline matched (run %d) invalid", c.Runs[0])
		}
		c.Text = fmt.Sprintf("%s (%d of %d points)", what, c.Points, c.Of) + c.evidence()
		out = append(out, c)
	}
	// a board whose baseline was passed over but whose points were not read (the dashboard) still says why
	for _, nb := range r.NoBaseline {
		if nb.Invalid && len(whole[nb.Board]) == 0 {
			c := InvalidCause{Board: nb.Board, Side: InvalidBaseline, Text: nb.Reason}
			c.Advice = ValidityAdvice(nb.Board, nil)
			out = append(out, c)
		}
	}
	return out
}

// summarizeInvalid counts the invalid points ms of board and reads their causes and background CPU; of is the
// number of points they are among.
func summarizeInvalid(board, side string, ms []store.Measurement, of int) InvalidCause {
	c := InvalidCause{Board: board, Side: side, Points: len(ms), Of: of}
	var reasons []string
	for _, m := range ms {
		c.Runs = addInt64(c.Runs, m.RunID)
		reasons = append(reasons, m.ValidityReasons...)
		if ev := m.Evidence; ev != nil && ev.BackgroundPct != nil {
			bg := *ev.BackgroundPct
			if c.BackgroundMinPct == nil || bg < *c.BackgroundMinPct {
				c.BackgroundMinPct = &bg
			}
			if c.BackgroundMaxPct == nil || bg > *c.BackgroundMaxPct {
				c.BackgroundMaxPct = &bg
			}
		}
	}
	slices.Sort(c.Runs)
	c.Causes = validity.Causes(reasons)
	c.Advice = ValidityAdvice(board, c.Causes)
	return c
}

// evidence is ": background CPU 60–90 %, throttled", or "" without causes.
func (c InvalidCause) evidence() string {
	if len(c.Causes) == 0 {
		return ""
	}
	parts := slices.Clone(c.Causes)
	for i, cause := range parts {
		if cause == "background CPU" && c.BackgroundMinPct != nil {
			lo, hi := fmt.Sprintf("%.0f", *c.BackgroundMinPct), fmt.Sprintf("%.0f", *c.BackgroundMaxPct)
			if lo == hi {
				parts[i] += " " + lo + " %"
			} else {
				parts[i] += " " + lo + "–" + hi + " %"
			}
		}
	}
	return ": " + strings.Join(parts, ", ")
}

// ValidityAdvice says what to do about the causes (validity.Cause's words) of a board's suspect or invalid points,
// naming the fleet run flags and the boards.toml keys that exist: the one home of that advice, for regress's
// exit 4 and the end of fleet run.
func ValidityAdvice(board string, causes []string) string {
	table := fmt.Sprintf("[boards.%s.validity] in boards.toml", board)
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, c := range causes {
		switch c {
		case "background CPU", "steal time":
			add(fmt.Sprintf("run on a quiet board, wait for one with fleet run --quiet-wait 60s (quiet_wait in %s), "+
				"or set the limits there (background_peak_pct, background_avg_pct)", table))
		case "throttled", "clock capped", "temperature":
			add(fmt.Sprintf("let the board cool, run with fleet run --governor performance (governor in %s), "+
				"or set throttle_pct there", table))
		case "governor powersave":
			add(fmt.Sprintf("run with fleet run --governor performance (governor = \"performance\" in %s)", table))
		case "swapping":
			add("free the board's memory: it was swapping")
		case "CPUs offline":
			add("bring the board's CPUs online")
		}
	}
	if len(out) == 0 {
		add(fmt.Sprintf("fleet show RUN lists each point's reasons; %s sets the limits", table))
	}
	return strings.Join(out, "; ")
}

// runSpanOf is "run 9", "runs 4–9" (oldest and newest) or "no run".
func runSpanOf(runs []int64) string {
	if len(runs) == 0 {
		return "no run"
	}
	return runSpan(runs)
}

// splitInvalid separates the points judged invalid from the others. Without an invalid point it returns ms
// itself: a point is about 500 bytes and a regression check splits thousands of them, most often none invalid.
// The results are only read.
func splitInvalid(ms []store.Measurement) (judgeable, invalid []store.Measurement) {
	n := 0
	for i := range ms {
		if ms[i].Validity == protocol.ValidityInvalid {
			n++
		}
	}
	if n == 0 {
		return ms, nil
	}
	judgeable, invalid = make([]store.Measurement, 0, len(ms)-n), make([]store.Measurement, 0, n)
	for i := range ms {
		if ms[i].Validity == protocol.ValidityInvalid {
			invalid = append(invalid, ms[i])
		} else {
			judgeable = append(judgeable, ms[i])
		}
	}
	return judgeable, invalid
}
