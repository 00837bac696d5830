package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// palette is eight colours that stay distinct for common colour-vision deficiencies (Okabe-Ito).
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// chartLine is one series of a line chart.
type chartLine struct {
	Name   string
	Points []chartPoint
	Band   bool // the points' Lo–Hi is drawn as a shaded band along the line instead of whiskers (a baseline's spread)
}

type chartPoint struct {
	X, Y    float64
	Lo, Hi  float64 // whisker (min, max); equal to Y when there is none
	Tooltip string
	Href    string // when set, the point links there (a history point to its run)
	// Invalid: every measurement behind the point was judged invalid. It is drawn hollow and left out of its
	// line, so that a busy night neither looks like a measurement nor bends the line towards it.
	Invalid bool
}

// lineChart is an inline SVG chart. LogX puts x on a log2 scale with a tick at every x that has a point (block
// sizes); XLabels replaces tick labels for categorical x (runs). The y axis is logarithmic when the data span more
// than a factor of 30, linear from zero otherwise.
type lineChart struct {
	Class   string // CSS class of the <svg>: "chart" for throughput, "history" for history
	Title   string
	XTitle  string
	YTitle  string
	LogX    bool
	TimeX   bool // x is a time (timeX): calendar ticks (timeTicks) instead of one per point
	XLabels map[float64]string
	Lines   []chartLine
	Marks   []chartMark   // change points on history charts: vertical lines with their delta
	Markers []chartMarker // crossovers on sweep charts: the block size where an accelerator overtakes the CPU
	Bands   []chartBand   // baseline bands on history charts: what the newest run is judged against
}

// chartMarker is a dashed vertical line at X with a label, in the colour of line Line (grey when -1).
type chartMarker struct {
	X     float64
	Label string
	Line  int
}

const (
	chartW, chartH                    = 760, 340
	padLeft, padRight, padTop, padBot = 64, 190, 28, 48
)

// svg renders the chart. Everything is computed here; the browser only draws.
func (c lineChart) svg() string {
	var xs []float64
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, l := range c.Lines {
		for _, p := range l.Points {
			xs = append(xs, p.X)
			ymin = math.Min(ymin, math.Min(p.Y, p.Lo))
			ymax = math.Max(ymax, math.Max(p.Y, p.Hi))
		}
	}
	for _, bd := range c.Bands {
		ymin, ymax = math.Min(ymin, bd.Lo), math.Max(ymax, bd.Hi)
	}
	// The plot keeps its size; the legend beside it gets the width of its longest name and the height of its
	// lines, so that many boards × modes are neither cut off nor overlapping.
	padRight, chartW, chartH := padRight, chartW, chartH
	longest := 0
	for _, l := range c.Lines {
		longest = max(longest, utf8.RuneCountInString(l.Name))
	}
	if need := 16 + 30 + 7*longest + 8; need > padRight {
		chartW += need - padRight
		padRight = need
	}
	legendRows := len(c.Lines)
	if c.anyInvalid() {
		legendRows++ // "invalid (not in line)"
	}
	chartH = max(chartH, padTop+20*legendRows+16)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="%s" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		c.Class, chartW, chartH, chartW, chartH, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>`+"\n", chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="18" class="title">%s</text>`+"\n", padLeft, html.EscapeString(c.Title))
	if len(xs) == 0 || ymax <= 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no data</text></svg>`+"\n", padLeft, chartH/2)
		return b.String()
	}
	xs = uniqueSorted(xs)
	plotW, plotH := float64(chartW-padLeft-padRight), float64(chartH-padTop-padBot)
	fx := func(x float64) float64 { return float64(padLeft) + plotW/2 }
	if len(xs) > 1 {
		lo, hi := xs[0], xs[len(xs)-1]
		tr := func(v float64) float64 { return v }
		if c.LogX && lo > 0 {
			tr = math.Log2
		}
		fx = func(x float64) float64 {
			return float64(padLeft) + 10 + (plotW-20)*(tr(x)-tr(lo))/(tr(hi)-tr(lo))
		}
	}
	logY := ymin > 0 && ymax/ymin > 30
	var fy func(float64) float64
	var yticks []float64
	if logY {
		lo, hi := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
		if hi == lo {
			hi++
		}
		fy = func(y float64) float64 {
			return float64(padTop) + plotH*(1-(math.Log10(y)-lo)/(hi-lo))
		}
		for e := lo; e <= hi; e++ {
			yticks = append(yticks, math.Pow(10, e))
		}
	} else {
		step := niceStep(ymax / 5)
		top := math.Ceil(ymax/step) * step
		fy = func(y float64) float64 { return float64(padTop) + plotH*(1-y/top) }
		for v := 0.0; v <= top*1.0001; v += step {
			yticks = append(yticks, v)
		}
	}
	// grid and axes
	for _, v := range yticks {
		y := fy(v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" class="grid"/>`, padLeft, y, chartW-padRight, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="ytick">%s</text>`+"\n", padLeft-6, y+4, tickLabel(v))
	}
	tickXs := xs
	labels := make([]string, len(xs))
	for i, x := range xs {
		labels[i] = fmtFloat(x)
		if l, ok := c.XLabels[x]; ok {
			labels[i] = l
		}
	}
	if c.TimeX && len(xs) > 1 {
		tickXs, labels = timeTicks(xs[0], xs[len(xs)-1], 8)
	}
	pos := make([]float64, len(tickXs))
	for i, x := range tickXs {
		pos[i] = fx(x)
	}
	shown := visibleTicks(pos, labels, 0, float64(chartW))
	for i, x := range tickXs {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="grid"/>`, fx(x), padTop, fx(x), chartH-padBot)
		if shown[i] {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="xtick">%s</text>`+"\n", fx(x), chartH-padBot+16, html.EscapeString(labels[i]))
		}
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" class="frame"/>`+"\n", padLeft, padTop, plotW, plotH)
	svgBands(&b, c.Bands, fx, fy, padLeft, chartH-padBot)
	svgMarks(&b, c.Marks, fx, chartH-padBot)
	scale := "linear"
	if logY {
		scale = "log scale"
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" class="axis">%s</text>`+"\n", float64(padLeft)+plotW/2, chartH-8, html.EscapeString(c.XTitle))
	fmt.Fprintf(&b, `<text x="14" y="%.0f" class="axis" transform="rotate(-90 14 %.0f)">%s (%s)</text>`+"\n",
		float64(padTop)+plotH/2, float64(padTop)+plotH/2, html.EscapeString(c.YTitle), scale)

	for i, l := range c.Lines {
		color, dash := lineStyle(i)
		pts := append([]chartPoint(nil), l.Points...)
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		var coords []string
		for _, p := range pts {
			if !p.Invalid {
				coords = append(coords, fmt.Sprintf("%.1f,%.1f", fx(p.X), fy(p.Y)))
			}
		}
		b.WriteString(`<g class="series">`)
		if l.Band {
			var lo, hi []string
			for _, p := range pts {
				lo = append(lo, fmt.Sprintf("%.1f,%.1f", fx(p.X), fy(p.Lo)))
				hi = append([]string{fmt.Sprintf("%.1f,%.1f", fx(p.X), fy(p.Hi))}, hi...)
			}
			fmt.Fprintf(&b, `<polygon class="spread" points="%s" fill="%s" fill-opacity="0.18" stroke="none"/>`,
				strings.Join(append(lo, hi...), " "), color)
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n",
			strings.Join(coords, " "), color, dash)
		for _, p := range pts {
			if p.Hi > p.Lo && !l.Band {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, fx(p.X), fy(p.Lo), fx(p.X), fy(p.Hi), color)
			}
			circle := fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`,
				fx(p.X), fy(p.Y), color, html.EscapeString(p.Tooltip))
			if p.Invalid {
				circle = fmt.Sprintf(`<circle class="invalid" cx="%.1f" cy="%.1f" r="4" fill="#fff" stroke="%s" stroke-width="2"><title>%s</title></circle>`,
					fx(p.X), fy(p.Y), color, html.EscapeString(p.Tooltip+" (invalid)"))
			}
			if p.Href != "" {
				circle = `<a href="` + html.EscapeString(p.Href) + `">` + circle + `</a>`
			}
			b.WriteString(circle + "\n")
		}
		b.WriteString("</g>\n")
		ly := padTop + 8 + 20*i
		lx := chartW - padRight + 16
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><circle cx="%d" cy="%d" r="4" fill="%s"/>`,
			lx, ly, lx+24, ly, color, dash, lx+12, ly, color)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="legend">%s</text>`+"\n", lx+30, ly+4, html.EscapeString(l.Name))
	}
	if c.anyInvalid() { // the legend explains the hollow points below the lines' names
		ly := padTop + 8 + 20*len(c.Lines)
		lx := chartW - padRight + 16
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="#fff" stroke="#555" stroke-width="2"/><text x="%d" y="%d" class="legend">invalid (not in line)</text>`+"\n",
			lx+12, ly, lx+30, ly+4)
	}
	for i, m := range c.Markers {
		color := "#555"
		if m.Line >= 0 {
			color, _ = lineStyle(m.Line)
		}
		x := fx(m.X)
		fmt.Fprintf(&b, `<g class="crossover"><line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`,
			x, padTop, x, chartH-padBot, color)
		// labels stack from the top of the plot, on the side of the line that has room
		anchor, dx := "start", 4.0
		if x > float64(padLeft)+plotW/2 {
			anchor, dx = "end", -4
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="marker" fill="%s" text-anchor="%s">%s</text></g>`+"\n",
			x+dx, padTop+14+14*i, color, anchor, html.EscapeString(m.Label))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func (c lineChart) anyInvalid() bool {
	for _, l := range c.Lines {
		for _, p := range l.Points {
			if p.Invalid {
				return true
			}
		}
	}
	return false
}

// lineStyle is the colour of line i and, once the palette is used up, a dash pattern that tells apart the lines
// sharing a colour.
func lineStyle(i int) (color, dash string) {
	color = palette[i%len(palette)]
	switch (i / len(palette)) % 3 {
	case 1:
		dash = ` stroke-dasharray="7 3"`
	case 2:
		dash = ` stroke-dasharray="2 3"`
	}
	return color, dash
}

// bar is one bar of a horizontal bar chart.
type bar struct {
	Label   string
	Value   float64
	Unknown bool // nothing accounted for the CPU: the bar says "unknown" instead of drawing 0 %
}

// barChart renders CPU % bars (0 to 100 per core, wider when a point used several cores).
func barChart(title string, bars []bar) string {
	const rowH, labelW, w = 24, 200, 760
	top := 100.0
	for _, br := range bars {
		top = math.Max(top, br.Value)
	}
	top = math.Ceil(top/100) * 100
	h := 30 + rowH*len(bars) + 24
	plotW := float64(w - labelW - 60)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		w, h, w, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="4" y="16" class="title">%s</text>`+"\n", html.EscapeString(title))
	for i, br := range bars {
		y := 26 + rowH*i
		bw := plotW * br.Value / top
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="ytick">%s</text>`, labelW-8, y+15, html.EscapeString(br.Label))
		if br.Unknown {
			fmt.Fprintf(&b, `<text x="%d" y="%d" class="value unknown"><title>%s: CPU not measured</title>unknown</text>`+"\n",
				labelW+6, y+15, html.EscapeString(br.Label))
			continue
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %.0f%%</title></rect>`,
			labelW, y+2, bw, rowH-6, palette[i%len(palette)], html.EscapeString(br.Label), br.Value)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="value">%.0f%%</text>`+"\n", float64(labelW)+bw+6, y+15, br.Value)
	}
	for v := 0.0; v <= top; v += 100 {
		x := float64(labelW) + plotW*v/top
		fmt.Fprintf(&b, `<line x1="%.1f" y1="24" x2="%.1f" y2="%d" class="grid"/><text x="%.1f" y="%d" class="xtick">%.0f%%</text>`+"\n",
			x, x, h-20, x, h-6, v)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// tickLabel prints an axis value without exponent notation ("10000", not "1e+04") and without the noise of
// repeated float steps ("0.6", not "0.6000000000000001").
func tickLabel(v float64) string {
	if v >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func uniqueSorted(xs []float64) []float64 {
	sort.Float64s(xs)
	var out []float64
	for _, x := range xs {
		if len(out) == 0 || x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}
