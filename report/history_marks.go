package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// SeriesChanges keeps the changes of the series k selects (its zero Threads, Op, KeyBits and Curve match any):
// what a history page of k marks.
func SeriesChanges(cs []Change, k store.SeriesKey) []Change {
	var out []Change
	for _, c := range cs {
		if c.Board != k.Board || c.Mode != k.Mode || c.Algorithm != k.Algorithm || c.BlockSize != k.BlockSize ||
			(k.Threads != 0 && c.Threads != k.Threads) || (k.Op != "" && c.Op != k.Op) ||
			(k.KeyBits != 0 && c.KeyBits != k.KeyBits) || (k.Curve != "" && c.Curve != k.Curve) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// FormatChange prints a relative change as the tables do: "−84.2%", "+3.0%".
func FormatChange(f float64) string { return formatChange(f) }

// ChangeLevels prints a change's level before and after it in unit (ops/s for asymmetric series), e.g.
// "1203 → 185.2 MB/s".
func ChangeLevels(c Change, unit string) string {
	if c.Key().Asym() {
		return fmt.Sprintf("%s → %s ops/s", formatValue(c.Before), formatValue(c.After))
	}
	return fmt.Sprintf("%s → %s %s", formatValue(inUnit(c.Before, unit)), formatValue(inUnit(c.After, unit)), unit)
}

// Marks are the changes a history chart draws: the judged changes and the steps not judged (Change.NotJudged),
// by series, then run.
func (r *ChangeReport) Marks() []Change {
	out := append(append([]Change{}, r.Changes...), r.NotJudged...)
	sortChanges(out)
	return out
}

// markChanges numbers the changes on a history chart (index: run → x, historyX): a dashed line, between the runs on either
// side, for each whose first run at the new level is plotted, labelled "#N −84.2%" as writeHistoryChanges lists it;
// a step not judged (seen only with the invalid points counted) is drawn apart, grey and dotted, labelled
// "#N not judged: invalid −86.0%".
func markChanges(chart *lineChart, index map[int64]float64, cs []Change) {
	for i, c := range cs {
		if x, ok := index[c.Run]; ok {
			// between the runs on either side: half a run before on a run axis, half-way in time on a time axis
			mx := x - 0.5
			if prev, ok := index[c.PreviousRun]; ok {
				mx = (prev + x) / 2
			}
			m := chartMark{X: mx, Label: fmt.Sprintf("#%d %s", i+1, formatChange(c.Delta))}
			if c.NotJudged != "" {
				m.NotJudged = true
				m.Label = fmt.Sprintf("#%d not judged: %s %s", i+1, notJudgedWhy(c), formatChange(c.Delta))
			}
			chart.Marks = append(chart.Marks, m)
		}
	}
}

// notJudgedWhy is the first word of a not-judged reason: "invalid" of "invalid: background CPU 60–90 %".
func notJudgedWhy(c Change) string {
	why, _, _ := strings.Cut(c.NotJudged, ":")
	return why
}

// writeHistoryChanges lists the changes under a history chart, numbered as the chart marks them (named by series
// when the chart draws several): the runs on either side (linked through runHref when set), the level before and
// after, the step, and the board facts that changed between the two runs. Nothing without changes.
func writeHistoryChanges(ew *errWriter, cs []Change, unit string, runHref func(int64) string, named bool) {
	if len(cs) == 0 {
		return
	}
	run := func(id int64) string {
		s := fmt.Sprintf("run %d", id)
		if runHref == nil {
			return s
		}
		return `<a href="` + html.EscapeString(runHref(id)) + `">` + s + `</a>`
	}
	ew.printf("<ol class=\"changes\">\n")
	for _, c := range cs {
		if c.NotJudged != "" {
			ew.printf("<li class=\"notjudged\">")
		} else {
			ew.printf("<li>")
		}
		if named {
			ew.printf("%s: ", html.EscapeString(c.Key().Label()))
		}
		if c.NotJudged != "" {
			ew.printf("<b>not judged</b> (%s; seen only with the invalid points counted, never a verdict): ", html.EscapeString(c.NotJudged))
		}
		ew.printf("<span class=\"step\">%s</span> from %s (%s) to %s (%s): %s, %d nights before, %d after",
			formatChange(c.Delta), run(c.PreviousRun), c.PreviousDate.UTC().Format("2006-01-02"), run(c.Run),
			c.Date.UTC().Format("2006-01-02"), html.EscapeString(ChangeLevels(c, unit)), c.NightsBefore, c.NightsAfter)
		if len(c.FactsChanged) > 0 {
			ew.printf("; changed between the runs: %s", html.EscapeString(strings.Join(c.FactsChanged, "; ")))
		} else {
			ew.printf("; no recorded board fact changed between the runs")
		}
		ew.printf("</li>\n")
	}
	ew.printf("</ol>\n")
}
