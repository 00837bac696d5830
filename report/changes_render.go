package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/report/stats"
)

// WriteChanges prints change points as text or Markdown (changes of several sizes of one algorithm at the same
// run grouped into one table, with the board facts that changed under it, then the notes: what was searched,
// how, and what was left out and why) or JSON (ChangesJSON: the changes and the same notes).
func WriteChanges(w io.Writer, r *ChangeReport, format string) error {
	f, err := ViewChanges.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText:
		d := r.document()
		d.Width = TextWidth
		err = d.writeText(w)
	case FormatMarkdown:
		err = r.document().writeMarkdown(w)
	case FormatJSON:
		err = writeJSON(w, r.JSON())
	default:
		return fmt.Errorf("changes: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write changes: %w", err)
	}
	return nil
}

// changeGroup is the changes of one board, mode, algorithm, operation and thread count at one run: the sizes
// that stepped together.
type changeGroup struct {
	key     SampleKey // size fields zero
	run     int64
	changes []Change
}

func groupChanges(cs []Change) []*changeGroup {
	byKey := map[string]*changeGroup{}
	var out []*changeGroup
	for _, c := range cs {
		k := c.Key()
		k.BlockSize, k.KeyBits, k.Curve = 0, 0, ""
		id := fmt.Sprintf("%v\x00%d", k, c.Run)
		g := byKey[id]
		if g == nil {
			g = &changeGroup{key: k, run: c.Run}
			byKey[id] = g
			out = append(out, g)
		}
		g.changes = append(g.changes, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.key.Board != b.key.Board {
			return a.key.Board < b.key.Board
		}
		if !a.changes[0].Date.Equal(b.changes[0].Date) {
			return a.changes[0].Date.Before(b.changes[0].Date)
		}
		if a.run != b.run {
			return a.run < b.run
		}
		return keyLess(a.key, b.key)
	})
	return out
}

// ChangesJSON is `fleet changes --format json`: the changes (see Change), the steps seen only with the invalid
// points counted (never a verdict), how many series were read and searched, what was left out per board and
// why (see LeftOut), and the notes the text prints. Every list is present, empty when there is nothing.
type ChangesJSON struct {
	Changes   []Change  `json:"changes"`
	NotJudged []Change  `json:"not_judged"`
	Series    int       `json:"series"`
	Searched  int       `json:"searched"`
	LeftOut   []LeftOut `json:"left_out"`
	Notes     []string  `json:"notes"`
}

// JSON is the report as ChangesJSON.
func (r *ChangeReport) JSON() ChangesJSON {
	j := ChangesJSON{Changes: r.Changes, NotJudged: r.NotJudged, Series: r.Series, Searched: r.Searched, LeftOut: r.LeftOut,
		Notes: r.Notes()}
	if j.Changes == nil {
		j.Changes = []Change{}
	}
	if j.NotJudged == nil {
		j.NotJudged = []Change{}
	}
	if j.LeftOut == nil {
		j.LeftOut = []LeftOut{}
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	return j
}

// Notes are the lines printed under the changes: what was searched and how, the steps not judged, what was
// left out and why, and the warnings.
func (r *ChangeReport) Notes() []string { return r.document().Notes }

func (r *ChangeReport) document() document {
	var d document
	for _, g := range groupChanges(r.Changes) {
		first := g.changes[0]
		t := table{
			Title: fmt.Sprintf("%s %s %s: changed at run %d (%s), after run %d (%s)", g.key.Board, g.key.Mode,
				algoLabel(g.key.Algorithm, g.key.Op, g.key.Threads), g.run, first.Date.Format("2006-01-02 15:04"),
				first.PreviousRun, first.PreviousDate.Format("2006-01-02")),
			Header: []string{"size", "before", "after", "change", "p", "runs before/after"},
			Align:  "lrrrrr",
		}
		var facts []string
		for _, c := range g.changes {
			k := c.Key()
			t.Rows = append(t.Rows, []string{k.Size(), c.valueText(c.Before), c.valueText(c.After), formatChange(c.Delta), formatP(c.P),
				fmt.Sprintf("%d/%d", c.NightsBefore, c.NightsAfter)})
			for _, f := range c.FactsChanged {
				facts = appendNew(facts, f)
			}
		}
		if len(facts) > 0 {
			t.Notes = append(t.Notes, "changed between the runs: "+strings.Join(facts, "; "))
		} else {
			t.Notes = append(t.Notes, "no recorded board fact changed between the runs")
		}
		d.Tables = append(d.Tables, t)
	}
	o := r.Options
	smallest := "every significant change reported"
	if o.MinChange > 0 {
		smallest = fmt.Sprintf("steps below %s merged", formatPct(o.MinChange))
	}
	window := ""
	if !o.Since.IsZero() {
		window = fmt.Sprintf(" starting on or after %s", o.Since.UTC().Format("2006-01-02 15:04"))
	}
	found := "no change"
	if len(r.Changes) > 0 {
		found = fmt.Sprintf("%d change(s)", len(r.Changes))
	}
	if r.Searched == r.Series {
		d.Notes = append(d.Notes, fmt.Sprintf("%s%s in %d series (%s)", found, window, r.Series, smallest))
	} else {
		d.Notes = append(d.Notes, fmt.Sprintf("%s%s in the %d series searched of %d (%s; below: why the others were not)",
			found, window, r.Searched, r.Series, smallest))
	}
	short := ""
	if o.MinChange > 0 {
		short = fmt.Sprintf("; in a series of fewer than %d runs a split that steps by at least %s is kept up to %g × α",
			stats.ShortRuns, formatPct(o.MinChange), float64(stats.ShortAlphaFactor))
	}
	d.Notes = append(d.Notes, fmt.Sprintf("t-test splits and arcs (a pulse's runs against those around it) of the runs' logarithms at α %g "+
		"(Bonferroni over the splits and arcs tried%s), "+
		"at least %d runs a side; one sample per run: the median of its repeats; before/after: medians of the runs between neighbouring changes; "+
		"change: the Hodges–Lehmann step between them (the median ratio of a run after to a run before), which the smallest change is held to",
		o.Alpha, short, o.MinSegment))
	if lowerBetter(o.Metric) {
		d.Notes = append(d.Notes, "series of energy: µJ per byte above the board's idle power, lower is better (a rise is the "+
			"worsening --fail-on-drop fails on); points without a figure are not in them")
	}
	d.Notes = append(d.Notes, notJudgedNotes(r.NotJudged)...)
	for _, l := range r.LeftOut {
		d.Notes = append(d.Notes, l.Note)
	}
	d.Notes = append(d.Notes, r.Warnings...)
	return d
}

// notJudgedNotes says, per series group and run, which steps show only with the invalid points counted:
// "not judged: am64x cpu aes-128-cbc 16 B −86.0%, 16384 B −85.1% at run 4 (2026-01-04) after run 3, with the
// invalid points counted (invalid: background CPU 60–90 %); never a verdict".
func notJudgedNotes(cs []Change) []string {
	var out []string
	for _, g := range groupChanges(cs) {
		first := g.changes[0]
		var steps []string
		for _, c := range g.changes {
			steps = append(steps, c.Key().Size()+" "+formatChange(c.Delta))
		}
		out = append(out, fmt.Sprintf("not judged: %s %s %s %s at run %d (%s) after run %d, with the invalid points counted (%s); never a verdict",
			g.key.Board, g.key.Mode, algoLabel(g.key.Algorithm, g.key.Op, g.key.Threads), strings.Join(steps, ", "), g.run,
			first.Date.Format("2006-01-02"), first.PreviousRun, first.NotJudged))
	}
	return out
}

// formatP prints a p-value with at most three decimals: 0.005, 0.01, and "<0.001" below that.
func formatP(p float64) string {
	if p < 0.0005 {
		return "<0.001"
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".")
}

func appendNew(ss []string, s string) []string {
	for _, v := range ss {
		if v == s {
			return ss
		}
	}
	return append(ss, s)
}
