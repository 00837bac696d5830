package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
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
	xs, ymin, ymax := c.extent()
	g := c.canvas()
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="%s" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		c.Class, g.w, g.h, g.w, g.h, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>`+"\n", g.w, g.h)
	fmt.Fprintf(&b, `<text x="%d" y="18" class="title">%s</text>`+"\n", padLeft, html.EscapeString(c.Title))
	if len(xs) == 0 || ymax <= 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no data</text></svg>`+"\n", padLeft, g.h/2)
		return b.String()
	}
	g.scale(uniqueSorted(xs), c.LogX, ymin, ymax)
	g.grid(&b, c)
	svgBands(&b, c.Bands, g.fx, g.fy, padLeft, g.h-padBot)
	svgMarks(&b, c.Marks, g.fx, g.h-padBot)
	g.axisTitles(&b, c)
	for i, l := range c.Lines {
		g.series(&b, i, l)
	}
	if c.anyInvalid() { // the legend explains the hollow points below the lines' names
		ly := padTop + 8 + 20*len(c.Lines)
		lx := g.w - g.padRight + 16
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="#fff" stroke="#555" stroke-width="2"/><text x="%d" y="%d" class="legend">invalid (not in line)</text>`+"\n",
			lx+12, ly, lx+30, ly+4)
	}
	g.markers(&b, c.Markers)
	b.WriteString("</svg>\n")
	return b.String()
}

// extent is the x of every point, and the lowest and highest y of the points, their whiskers and the bands.
func (c lineChart) extent() (xs []float64, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
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
	return xs, ymin, ymax
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
