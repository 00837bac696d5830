package report

import (
	"fmt"
	"slices"
	"strings"
)

// footnotes numbers distinct notes so that a table row carries "[1]" and the text is printed once below.
type footnotes struct {
	index map[string]int
	list  []string
}

// mark returns " [1] [2]" for the notes, numbering new ones.
func (f *footnotes) mark(notes []string) string {
	if f.index == nil {
		f.index = map[string]int{}
	}
	var b strings.Builder
	for _, n := range notes {
		i, ok := f.index[n]
		if !ok {
			f.list = append(f.list, n)
			i = len(f.list)
			f.index[n] = i
		}
		fmt.Fprintf(&b, " [%d]", i)
	}
	return b.String()
}

func (f *footnotes) lines() []string {
	out := make([]string, len(f.list))
	for i, n := range f.list {
		out[i] = fmt.Sprintf("[%d] %s", i+1, n)
	}
	return out
}

// summaryLine counts the verdicts: "1 regressed, 1 missing, 12 unchanged".
func (r *Regression) summaryLine() string {
	var parts []string
	for _, v := range []string{VerdictWrongOutput, VerdictRegressed, VerdictUnconfirmed, VerdictMissing, VerdictImproved, VerdictMaybeBetter,
		VerdictUnchanged, VerdictNew, VerdictInvalid, VerdictConfirmed, VerdictTransient} {
		if n := r.Count(v); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	if n := len(r.NoBaseline); n == 1 {
		parts = append(parts, "1 board without baseline")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("%d boards without baseline", n))
	}
	if len(parts) == 0 {
		return "nothing to compare"
	}
	s := strings.Join(parts, ", ")
	if r.HasRegression() {
		s += ": REGRESSION"
	}
	return s
}

// document lays the regression out as one table of verdicts, with environment changes and notes below.
func (r *Regression) document() document {
	var fn footnotes
	t := table{
		Title: fmt.Sprintf("Against the baseline (threshold %s, α = %g, Mann-Whitney U): %s",
			formatPct(r.Threshold), r.Alpha, r.summaryLine()),
		Header: []string{"board", "mode", "algorithm", "size", "baseline", "current", "delta", "test", "verdict"},
		Align:  "llllrrrll",
	}
	// A note every row carries ("need ≥ 4 samples per side") is said once under the table, not marked on each.
	shared := map[string]bool{}
	if len(r.Rows) > 1 {
		for _, n := range r.Rows[0].Notes {
			shared[n] = true
		}
		for _, row := range r.Rows[1:] {
			for n := range shared {
				if !slices.Contains(row.Notes, n) {
					delete(shared, n)
				}
			}
		}
	}
	notes := func(row RegressRow) []string {
		var own []string
		for _, n := range row.Notes {
			if !shared[n] {
				own = append(own, n)
			}
		}
		return own
	}
	unconfirmed := false
	for _, row := range r.Rows {
		cell := func(s *Summary) string {
			switch {
			case s == nil:
				return "-"
			case lowerBetter(r.Metric):
				return formatEnergyCell(*s)
			}
			return formatCell(*s, r.Unit, row.Asym())
		}
		t.Rows = append(t.Rows, []string{row.Board, row.Mode, algoLabel(row.Algorithm, row.Op, row.Threads),
			row.Size(), cell(row.Base), cell(row.Cur), row.Delta, row.pString(), tableVerdict(row.Verdict) + fn.mark(notes(row))})
		if tableVerdict(row.Verdict) != row.Verdict {
			unconfirmed = true
		}
		t.Links = append(t.Links, []SampleKey{{}, {}, row.SampleKey, row.SampleKey}) // algorithm and size: the series' history
	}
	var d document
	d.Tables = append(d.Tables, t)
	for _, nb := range r.NoBaseline {
		d.Notes = append(d.Notes, fmt.Sprintf("no baseline for %s, not judged: %s", nb.Board, nb.Reason))
	}
	d.Notes = append(d.Notes, r.baselineNotes()...)
	d.Notes = append(d.Notes, r.InvalidReasons()...)
	for _, e := range r.Environment {
		d.Notes = append(d.Notes, fmt.Sprintf("environment changed on %s: %s", e.Board, strings.Join(e.Changes, "; ")))
	}
	for _, n := range r.Rows[0:min(1, len(r.Rows))] {
		for _, note := range n.Notes {
			if shared[note] {
				d.Notes = append(d.Notes, note)
			}
		}
	}
	if unconfirmed {
		d.Notes = append(d.Notes, "regressed? and improved?: beyond the threshold, but with too few samples to "+
			"test significance (unconfirmed); a regressed? fails the check")
	}
	d.Notes = append(d.Notes, fn.lines()...)
	d.Notes = append(d.Notes, r.Notes...)
	if note := r.unitNote(); note != "" {
		d.Notes = append(d.Notes, note)
	}
	return d
}

// unitNote says what the table's figures are: energy above idle or throughput, and what "~" means; "" without
// a unit.
func (r *Regression) unitNote() string {
	if lowerBetter(r.Metric) {
		return fmt.Sprintf("energy in %s above the board's idle power, lower is better (a rise is a "+
			"regression): median ±spread (n); delta is \"~\" when not significant at α = %g", UnitEnergy, r.Alpha)
	}
	if r.Unit == "" {
		return ""
	}
	return fmt.Sprintf("throughput in %s (asymmetric operations in ops/s): median ±spread (n); "+
		"delta is \"~\" when not significant at α = %g", r.Unit, r.Alpha)
}

// tableVerdict is the verdict as the table prints it: the unconfirmed verdicts as "regressed?" and "improved?",
// echoing their delta's "?", so that the table fits a terminal; the summary line and JSON say them in full.
func tableVerdict(v string) string {
	switch v {
	case VerdictUnconfirmed:
		return "regressed?"
	case VerdictMaybeBetter:
		return "improved?"
	}
	return v
}
