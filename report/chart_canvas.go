package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// chartCanvas is where a line chart is drawn: its size, and once scaled, the maps from data to pixels that every
// part of the SVG is placed by.
type chartCanvas struct {
	w, h, padRight int
	plotW, plotH   float64
	xs             []float64 // the distinct x of the points, sorted
	fx, fy         func(float64) float64
	logY           bool
	yticks         []float64
}

// canvas sizes the chart. The plot keeps its size; the legend beside it gets the width of its longest name and
// the height of its lines, so that many boards × modes are neither cut off nor overlapping.
func (c lineChart) canvas() *chartCanvas {
	g := &chartCanvas{w: chartW, h: chartH, padRight: padRight}
	longest := 0
	for _, l := range c.Lines {
		longest = max(longest, utf8.RuneCountInString(l.Name))
	}
	if need := 16 + 30 + 7*longest + 8; need > g.padRight {
		g.w += need - g.padRight
		g.padRight = need
	}
	legendRows := len(c.Lines)
	if c.anyInvalid() {
		legendRows++ // "invalid (not in line)"
	}
	g.h = max(g.h, padTop+20*legendRows+16)
	g.plotW, g.plotH = float64(g.w-padLeft-g.padRight), float64(g.h-padTop-padBot)
	return g
}

// scale maps x (log2 when logX and every x is positive) and y to pixels. The y axis is logarithmic with a tick
// per decade when the data span more than a factor of 30, linear from zero with nice steps otherwise.
func (g *chartCanvas) scale(xs []float64, logX bool, ymin, ymax float64) {
	g.xs = xs
	g.fx = func(x float64) float64 { return float64(padLeft) + g.plotW/2 }
	if len(xs) > 1 {
		lo, hi := xs[0], xs[len(xs)-1]
		tr := func(v float64) float64 { return v }
		if logX && lo > 0 {
			tr = math.Log2
		}
		g.fx = func(x float64) float64 {
			return float64(padLeft) + 10 + (g.plotW-20)*(tr(x)-tr(lo))/(tr(hi)-tr(lo))
		}
	}
	g.logY = ymin > 0 && ymax/ymin > 30
	if g.logY {
		lo, hi := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
		if hi == lo {
			hi++
		}
		g.fy = func(y float64) float64 {
			return float64(padTop) + g.plotH*(1-(math.Log10(y)-lo)/(hi-lo))
		}
		for e := lo; e <= hi; e++ {
			g.yticks = append(g.yticks, math.Pow(10, e))
		}
		return
	}
	step := niceStep(ymax / 5)
	top := math.Ceil(ymax/step) * step
	g.fy = func(y float64) float64 { return float64(padTop) + g.plotH*(1-y/top) }
	for v := 0.0; v <= top*1.0001; v += step {
		g.yticks = append(g.yticks, v)
	}
}

// grid draws the grid lines with their tick labels (one per x, or calendar ticks for a time axis; labels that
// would overlap are left out) and the plot's frame.
func (g *chartCanvas) grid(b *strings.Builder, c lineChart) {
	for _, v := range g.yticks {
		y := g.fy(v)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" class="grid"/>`, padLeft, y, g.w-g.padRight, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" class="ytick">%s</text>`+"\n", padLeft-6, y+4, tickLabel(v))
	}
	xs := g.xs
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
		pos[i] = g.fx(x)
	}
	shown := visibleTicks(pos, labels, 0, float64(g.w))
	for i, x := range tickXs {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="grid"/>`, g.fx(x), padTop, g.fx(x), g.h-padBot)
		if shown[i] {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" class="xtick">%s</text>`+"\n", g.fx(x), g.h-padBot+16, html.EscapeString(labels[i]))
		}
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" class="frame"/>`+"\n", padLeft, padTop, g.plotW, g.plotH)
}

// axisTitles writes the x title below the plot and the y title, with its scale, along its left side.
func (g *chartCanvas) axisTitles(b *strings.Builder, c lineChart) {
	scale := "linear"
	if g.logY {
		scale = "log scale"
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%d" class="axis">%s</text>`+"\n", float64(padLeft)+g.plotW/2, g.h-8, html.EscapeString(c.XTitle))
	fmt.Fprintf(b, `<text x="14" y="%.0f" class="axis" transform="rotate(-90 14 %.0f)">%s (%s)</text>`+"\n",
		float64(padTop)+g.plotH/2, float64(padTop)+g.plotH/2, html.EscapeString(c.YTitle), scale)
}

// series draws line i: its spread band or whiskers, the line through its valid points, every point (hollow when
// invalid, a link when it has one), and its entry in the legend.
func (g *chartCanvas) series(b *strings.Builder, i int, l chartLine) {
	fx, fy := g.fx, g.fy
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
		fmt.Fprintf(b, `<polygon class="spread" points="%s" fill="%s" fill-opacity="0.18" stroke="none"/>`,
			strings.Join(append(lo, hi...), " "), color)
	}
	fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n",
		strings.Join(coords, " "), color, dash)
	for _, p := range pts {
		if p.Hi > p.Lo && !l.Band {
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, fx(p.X), fy(p.Lo), fx(p.X), fy(p.Hi), color)
		}
		b.WriteString(g.circle(p, color) + "\n")
	}
	b.WriteString("</g>\n")
	ly := padTop + 8 + 20*i
	lx := g.w - g.padRight + 16
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><circle cx="%d" cy="%d" r="4" fill="%s"/>`,
		lx, ly, lx+24, ly, color, dash, lx+12, ly, color)
	fmt.Fprintf(b, `<text x="%d" y="%d" class="legend">%s</text>`+"\n", lx+30, ly+4, html.EscapeString(l.Name))
}

// circle is point p with its tooltip: filled, or hollow when invalid, inside a link when it has one.
func (g *chartCanvas) circle(p chartPoint, color string) string {
	circle := fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`,
		g.fx(p.X), g.fy(p.Y), color, html.EscapeString(p.Tooltip))
	if p.Invalid {
		circle = fmt.Sprintf(`<circle class="invalid" cx="%.1f" cy="%.1f" r="4" fill="#fff" stroke="%s" stroke-width="2"><title>%s</title></circle>`,
			g.fx(p.X), g.fy(p.Y), color, html.EscapeString(p.Tooltip+" (invalid)"))
	}
	if p.Href != "" {
		circle = `<a href="` + html.EscapeString(p.Href) + `">` + circle + `</a>`
	}
	return circle
}

// markers draws the crossovers: dashed vertical lines in their line's colour, labels stacked from the top of the
// plot on the side of the line that has room.
func (g *chartCanvas) markers(b *strings.Builder, markers []chartMarker) {
	for i, m := range markers {
		color := "#555"
		if m.Line >= 0 {
			color, _ = lineStyle(m.Line)
		}
		x := g.fx(m.X)
		fmt.Fprintf(b, `<g class="crossover"><line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`,
			x, padTop, x, g.h-padBot, color)
		anchor, dx := "start", 4.0
		if x > float64(padLeft)+g.plotW/2 {
			anchor, dx = "end", -4
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="marker" fill="%s" text-anchor="%s">%s</text></g>`+"\n",
			x+dx, padTop+14+14*i, color, anchor, html.EscapeString(m.Label))
	}
}
