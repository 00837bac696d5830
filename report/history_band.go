package report

import (
	"fmt"
	"html"
	"strings"
)

// HistoryBand is what `fleet regress` would judge a series' newest run against, drawn on its history: the
// baseline runs pooled (the window after any level cut), their median, and the threshold either side of it.
// A judged run below the band by more than the threshold, and significantly so, is a regression.
type HistoryBand struct {
	Key       SampleKey
	Runs      []int64 // the baseline runs pooled, oldest first
	Median    float64 // bytes/s, or ops/s for asymmetric series
	Threshold float64 // a fraction: 0.05 draws ±5 %
	Judged    int64   // the run judged against it: the newest of the series
	Label     string  // e.g. "baseline: nightly runs 12–21, 10 runs, 30 samples"
}

// chartBand is a baseline band on a chart: from X0 to X1 (the baseline runs) a rectangle from Lo to Hi around
// the median Y, the median carried on as a dashed line to JudgedX; in the colour of line Line.
type chartBand struct {
	X0, X1, JudgedX float64
	Y, Lo, Hi       float64
	Line            int
	Label           string
}

// bandsOf places bands on a history chart: x maps a run to its x (a run not drawn drops its band), line a
// series to the index of its line, scale a value to the chart's unit.
func bandsOf(bands []HistoryBand, x map[int64]float64, line map[SampleKey]int, scale func(SampleKey, float64) float64) []chartBand {
	var out []chartBand
	for _, b := range bands {
		li, ok := line[b.Key]
		if !ok || len(b.Runs) == 0 || b.Median <= 0 {
			continue
		}
		x0, ok0 := x[b.Runs[0]]
		x1, ok1 := x[b.Runs[len(b.Runs)-1]]
		xj, okj := x[b.Judged]
		if !ok0 || !ok1 || !okj {
			continue
		}
		out = append(out, chartBand{X0: x0, X1: x1, JudgedX: xj, Y: scale(b.Key, b.Median),
			Lo: scale(b.Key, b.Median*(1-b.Threshold)), Hi: scale(b.Key, b.Median*(1+b.Threshold)), Line: li,
			Label: fmt.Sprintf("%s, ±%s", b.Label, fmtPercent(b.Threshold))})
	}
	return out
}

// fmtPercent prints a fraction as a percentage: 0.05 → "5%".
func fmtPercent(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", 100*f), ".0") + "%" }

// svgBands draws the bands under the lines; labels stack at the bottom left of the plot.
func svgBands(b *strings.Builder, bands []chartBand, fx, fy func(float64) float64, left, bottom int) {
	for i, bd := range bands {
		color, _ := lineStyle(bd.Line)
		x0, x1 := fx(bd.X0), fx(bd.X1)
		if x1-x0 < 12 { // one baseline run: a narrow band still shows
			x0, x1 = x0-6, x1+6
		}
		yHi, yLo := fy(bd.Hi), fy(bd.Lo)
		// the window's runs shaded the plot's full height, so that a band a few pixels high is still found
		fmt.Fprintf(b, `<rect class="window" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" fill-opacity="0.06"/>`,
			x0, padTop, x1-x0, bottom-padTop, color)
		fmt.Fprintf(b, `<g class="band"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.15" stroke="%s" stroke-opacity="0.5"><title>%s</title></rect>`,
			x0, yHi, x1-x0, yLo-yHi, color, color, html.EscapeString(bd.Label))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="3 3"/>`,
			x0, fy(bd.Y), fx(bd.JudgedX), fy(bd.Y), color)
		fmt.Fprintf(b, `<text x="%d" y="%d" class="bandlabel" fill="%s" font-size="11">%s</text></g>`+"\n",
			left+6, bottom-6-13*i, color, html.EscapeString(bd.Label))
	}
}

// historyBands places bands on the history chart of points (its lines in the order their series first come,
// as historyChartOn draws them), in unit, with the runs at runX.
func historyBands(points []historyPoint, unit string, runX map[int64]float64, bands []HistoryBand) []chartBand {
	if len(bands) == 0 {
		return nil
	}
	line := map[SampleKey]int{}
	for _, p := range points {
		if _, ok := line[p.Key]; !ok {
			line[p.Key] = len(line)
		}
	}
	scale := func(k SampleKey, v float64) float64 {
		if k.Asym() {
			return v
		}
		return inUnit(v, unit)
	}
	return bandsOf(bands, runX, line, scale)
}
