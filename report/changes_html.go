package report

import (
	"fmt"
	"html"
	"strings"
)

// chartMark is a vertical line on a chart at X with a short label at its top: a change point on a history chart.
type chartMark struct {
	X     float64
	Label string
}

// svgMarks draws the marks of a chart inside its plot area (styled inline: pages without changes stay as they were).
// bottom is the plot's lower edge: a chart grows taller with its legend.
func svgMarks(b *strings.Builder, marks []chartMark, fx func(float64) float64, bottom int) {
	for i, m := range marks {
		x := fx(m.X)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="change" stroke="#D55E00" stroke-dasharray="4 3"/>`, x, padTop, x, bottom)
		// neighbouring changes stagger their labels over three rows rather than print over each other
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="change" fill="#D55E00" font-size="11">%s</text>`+"\n", x+3, padTop+12+13*(i%3), html.EscapeString(m.Label))
	}
}
