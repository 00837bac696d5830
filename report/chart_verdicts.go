package report

import (
	"fmt"
	"html/template"
	"sort"
	"strings"
)

// The regress and reference pages are tables of verdicts; beside them a chart per series group shows what the
// verdict was drawn from, over block sizes: on the regress page the baseline's min–max as a shaded band with
// its median and the judged run's median as points; on the reference page the measured median beside the
// published figure (its published range shaded where the table gives one).

// maxVerdictCharts bounds the charts of one page: a lab's whole regression is hundreds of series.
const maxVerdictCharts = 24

// sweepGroup names the series a chart over block sizes draws: the key without its block size.
func sweepGroup(k SampleKey) SampleKey {
	k.BlockSize = 0
	return k
}

// groupTitle is "am64x devcrypto aes-128-cbc encrypt" (threads when not 1).
func groupTitle(k SampleKey) string {
	s := strings.Join(nonEmptyWords(k.Board, k.Mode, k.Algorithm, k.Op), " ")
	if k.Threads > 1 {
		s += fmt.Sprintf(" ×%d threads", k.Threads)
	}
	return s
}

func nonEmptyWords(ws ...string) []string {
	var out []string
	for _, w := range ws {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// sweepCharts draws one chart per group of rows (symmetric rows only: asymmetric ones have no block size),
// the groups in key order, at most maxVerdictCharts, and says how many were left out.
func sweepCharts(keys []SampleKey, draw func(group SampleKey, idx []int) lineChart) template.HTML {
	groups := map[SampleKey][]int{}
	var order []SampleKey
	for i, k := range keys {
		if k.Asym() || k.BlockSize <= 0 {
			continue
		}
		g := sweepGroup(k)
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	sort.Slice(order, func(i, j int) bool { return keyLess(order[i], order[j]) })
	return fragment(func(ew *errWriter) {
		if len(order) == 0 {
			return
		}
		ew.printf("<div class=\"verdict-charts\">\n")
		for i, g := range order {
			if i == maxVerdictCharts {
				ew.printf("<p class=\"hint\">%d more series groups not drawn: the table lists them.</p>\n", len(order)-i)
				break
			}
			ew.printf("%s", draw(g, groups[g]).svg())
		}
		ew.printf("</div>\n")
	})
}

// RegressionChartHTML draws, per series group over block sizes, the baseline's min–max as a band with its
// median, and the judged run's median with its min–max; rows without both sides are left out.
func RegressionChartHTML(r *Regression) template.HTML {
	var keys []SampleKey
	var rows []RegressRow
	for _, row := range r.Rows {
		if row.Base != nil && row.Cur != nil {
			keys, rows = append(keys, row.SampleKey), append(rows, row)
		}
	}
	unit := firstNonEmpty(r.Unit, DefaultUnit)
	return sweepCharts(keys, func(g SampleKey, idx []int) lineChart {
		c := lineChart{Class: "chart regress", Title: groupTitle(g), XTitle: "block size (bytes)", YTitle: unit, LogX: true}
		base, cur := chartLine{Name: "baseline median, min–max", Band: true}, chartLine{Name: "judged run"}
		for _, i := range idx {
			row := rows[i]
			x := float64(row.BlockSize)
			b, k := *row.Base, *row.Cur
			base.Points = append(base.Points, chartPoint{X: x, Y: inUnit(b.Median, unit), Lo: inUnit(b.Min, unit), Hi: inUnit(b.Max, unit),
				Tooltip: fmt.Sprintf("%d B baseline: %s", row.BlockSize, formatCell(b, unit, false))})
			cur.Points = append(cur.Points, chartPoint{X: x, Y: inUnit(k.Median, unit), Lo: inUnit(k.Min, unit), Hi: inUnit(k.Max, unit),
				Tooltip: fmt.Sprintf("%d B judged: %s, %s %s", row.BlockSize, formatCell(k, unit, false), row.Verdict, row.Delta)})
		}
		c.Lines = []chartLine{base, cur}
		return c
	})
}

// ReferenceChartHTML draws, per series group over block sizes, the measured median beside the published figure
// (its published range as a band where the table gives one).
func ReferenceChartHTML(rc *ReferenceComparison) template.HTML {
	keys := make([]SampleKey, len(rc.Rows))
	for i, row := range rc.Rows {
		keys[i] = row.SampleKey
	}
	unit := firstNonEmpty(rc.Unit, DefaultUnit)
	return sweepCharts(keys, func(g SampleKey, idx []int) lineChart {
		c := lineChart{Class: "chart reference", Title: groupTitle(g), XTitle: "block size (bytes)", YTitle: unit, LogX: true}
		meas, pub := chartLine{Name: "measured median"}, chartLine{Name: "published: " + rc.Label, Band: true}
		for _, i := range idx {
			row := rc.Rows[i]
			x := float64(row.BlockSize)
			y := inUnit(row.Median, unit)
			meas.Points = append(meas.Points, chartPoint{X: x, Y: y, Lo: y, Hi: y,
				Tooltip: fmt.Sprintf("%d B measured: %s %s (%.0f%% of published)", row.BlockSize, formatValue(y), unit, row.Percent)})
			ref := inUnit(row.Reference, unit)
			lo, hi := ref, ref
			if row.ReferenceMin > 0 && row.ReferenceMax > 0 {
				lo, hi = inUnit(row.ReferenceMin, unit), inUnit(row.ReferenceMax, unit)
			}
			pub.Points = append(pub.Points, chartPoint{X: x, Y: ref, Lo: lo, Hi: hi,
				Tooltip: fmt.Sprintf("%d B published (%s): %s %s", row.BlockSize, row.ReferenceBoard, formatValue(ref), unit)})
		}
		c.Lines = []chartLine{meas, pub}
		return c
	})
}
