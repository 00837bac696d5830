package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/store"
)

// Adaptive repeats (--precision): a point measured with a precision target carries the target in its flags
// (package precision). Its cell prints the median of the repeats that count (neither failed nor invalid) with
// the half width of the 95 % confidence interval of that median, "1256 ±0.8 % (n=7)", and a point that stopped
// before reaching its target is marked §.

// markCap is the footnote mark of a point that stopped before reaching its precision target.
const markCap = "§"

// Why a point under a precision target stopped.
const (
	StopReached   = "reached"    // its interval is within the target
	StopMaxRepeat = "max-repeat" // it ran as often as the target allowed
	StopEarly     = "early"      // fewer repeats: the board's time budget was spent, a repeat failed, or the run was interrupted
)

// Precision is the precision a point reached under its target.
type Precision struct {
	TargetPct float64 `json:"target_pct"`
	MaxRepeat int     `json:"max_repeat"`
	// HalfPct is the half width of the 95 % interval of the median in percent of it; nil below precision.MinN
	// counted repeats, where no such interval exists.
	HalfPct *float64 `json:"half_pct"`
	Median  float64  `json:"median"` // of the counted repeats, B/s or ops/s
	Lo      float64  `json:"lo"`     // the interval, B/s or ops/s (the median when there is none)
	Hi      float64  `json:"hi"`
	N       int      `json:"n"`       // repeats that count
	Repeats int      `json:"repeats"` // every repeat stored, failed and invalid ones included
	Stop    string   `json:"stop"`    // StopReached, StopMaxRepeat or StopEarly
}

// Capped reports whether the point stopped before reaching its target.
func (p *Precision) Capped() bool { return p.Stop != StopReached }

// precisionOf is the sample's precision, or nil when its points had no target.
func precisionOf(s *Sample) *Precision {
	if s.Target == nil {
		return nil
	}
	iv := precision.MedianCI(s.Counted)
	p := &Precision{TargetPct: s.Target.Pct, MaxRepeat: s.Target.MaxRepeat, Median: iv.Median, Lo: iv.Lo, Hi: iv.Hi,
		N: iv.N, Repeats: len(s.Values) + s.Failed}
	if iv.N == 0 && len(s.Values) > 0 {
		// nothing counts (every repeat invalid): show what was measured, marked ‡ and n=0
		m := Summarize(s.Values).Median
		p.Median, p.Lo, p.Hi = m, m, m
	}
	if iv.OK && iv.Median > 0 {
		h := iv.HalfPct()
		p.HalfPct = &h
	}
	switch {
	case iv.Reached(s.Target.Pct):
		p.Stop = StopReached
	case p.Repeats >= s.Target.MaxRepeat:
		p.Stop = StopMaxRepeat
	default:
		p.Stop = StopEarly
	}
	return p
}

// formatPrecision prints a cell measured to a target: "1256 ±0.8 % (n=7)", "1256 (n=4)" without an interval,
// marked § when it stopped before the target.
func formatPrecision(p *Precision, unit string, asym bool) string {
	v := p.Median
	if !asym {
		v = inUnit(v, unit)
	}
	s := fmt.Sprintf("%s (n=%d)", formatValue(v), p.N)
	if p.HalfPct != nil {
		s = fmt.Sprintf("%s ±%s %% (n=%d)", formatValue(v), formatHalf(*p.HalfPct), p.N)
	}
	if p.Capped() {
		s += markCap
	}
	return s
}

// formatHalf prints a half width in percent with one decimal, two below 0.1 so that a tight interval does not
// read as ±0.0.
func formatHalf(h float64) string {
	if h < 0.095 {
		return fmt.Sprintf("%.2f", h)
	}
	return fmt.Sprintf("%.1f", h)
}

// cellText prints a throughput or ops/s cell: under a precision target its median ±interval (n), else the
// median ±spread (n).
func cellText(cell *Cell, unit string, asym bool) string {
	if cell.Precision != nil {
		return formatPrecision(cell.Precision, unit, asym)
	}
	return formatCell(cell.summary(), unit, asym)
}

// precisionNotes explains the ± of cells measured to a target, once, and per board how many points stopped
// before their target and why.
func precisionNotes(samples []*Sample) []string {
	type tally struct{ points, maxRepeat, early int }
	boards := map[string]*tally{}
	var targets []string
	for _, s := range samples {
		p := precisionOf(s)
		if p == nil {
			continue
		}
		tg := fmt.Sprintf("±%g %% within %d repeats", p.TargetPct, p.MaxRepeat)
		if !contains(targets, tg) {
			targets = append(targets, tg)
		}
		t := boards[s.Key.Board]
		if t == nil {
			t = &tally{}
			boards[s.Key.Board] = t
		}
		t.points++
		switch p.Stop {
		case StopMaxRepeat:
			t.maxRepeat++
		case StopEarly:
			t.early++
		}
	}
	if len(boards) == 0 {
		return nil
	}
	notes := []string{fmt.Sprintf("precision target %s: cells show the median ± the half width of its 95 %% confidence interval "+
		"(distribution-free, at least %d repeats), n = the repeats that count (not failed, not invalid)", strings.Join(targets, "; "), precision.MinN)}
	names := make([]string, 0, len(boards))
	for b := range boards {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, b := range names {
		t := boards[b]
		if t.maxRepeat+t.early == 0 {
			continue
		}
		var parts []string
		if t.maxRepeat > 0 {
			parts = append(parts, fmt.Sprintf("%d at the repeat cap", t.maxRepeat))
		}
		if t.early > 0 {
			parts = append(parts, fmt.Sprintf("%d early (time budget spent, a repeat failed, or the run interrupted)", t.early))
		}
		notes = append(notes, fmt.Sprintf("%s %s: %d of %d points stopped before their target: %s", markCap, b,
			t.maxRepeat+t.early, t.points, strings.Join(parts, ", ")))
	}
	return notes
}

// precisionLegend says what the ± of a table's cells is: "" when no cell was measured to a precision target
// (the caller keeps its own words), the interval when every cell was, both when some were. cols nil: all.
func precisionLegend(rows []CompareRow, cols []int) string {
	some, all := false, true
	for _, r := range rows {
		for i, cell := range r.Cells {
			if cell == nil || cols != nil && !containsInt(cols, i) {
				continue
			}
			some = some || cell.Precision != nil
			all = all && cell.Precision != nil
		}
	}
	switch {
	case !some:
		return ""
	case all:
		return "median ±95 % interval (n)"
	}
	return "median ±95 % interval (n) under a precision target, else ±spread (n)"
}

// precisionCSV is the precision columns of a cell or point: target, half width, n and stop, empty without a
// target.
func precisionCSV(p *Precision) []string {
	if p == nil {
		return []string{"", "", "", ""}
	}
	half := ""
	if p.HalfPct != nil {
		half = fmtFloat(*p.HalfPct)
	}
	return []string{fmtFloat(p.TargetPct), half, fmt.Sprint(p.N), p.Stop}
}

// precisionCSVHeader names precisionCSV's columns.
var precisionCSVHeader = []string{"precision_target_pct", "precision_half_pct", "precision_n", "precision_stop"}

// precisionByKey is the precision of every sample of ms measured to a target, for listings of single points.
func precisionByKey(ms []store.Measurement) (map[SampleKey]*Precision, []*Sample) {
	samples, _ := Group(ms)
	out := map[SampleKey]*Precision{}
	for _, s := range samples {
		if p := precisionOf(s); p != nil {
			out[s.Key] = p
		}
	}
	return out, samples
}

// precisionTable lists, under the points of fleet results, what each point measured to a target reached.
func precisionTable(samples []*Sample) (table, bool) {
	t := table{Title: "Precision per point (median ±95 % interval of the repeats that count)",
		Header: []string{"board", "mode", "algorithm", "size", "threads", "median", "±", "n", "repeats", "target", "stop"},
		Align:  "lllllrrrrrl"}
	for _, s := range samples {
		p := precisionOf(s)
		if p == nil {
			continue
		}
		k := s.Key
		med := formatThroughput(p.Median, DefaultUnit, k.Asym())
		half := "-"
		if p.HalfPct != nil {
			half = formatHalf(*p.HalfPct) + " %"
		}
		stop := p.Stop
		if p.Capped() {
			stop += " " + markCap
		}
		t.Rows = append(t.Rows, []string{k.Board, k.Mode, algoLabel(k.Algorithm, k.Op, 1), k.Size(), fmt.Sprint(k.Threads),
			med, half, fmt.Sprint(p.N), fmt.Sprint(p.Repeats), fmt.Sprintf("±%g %%", p.TargetPct), stop})
	}
	return t, len(t.Rows) > 0
}
