package report

import (
	"fmt"
	"html"
	"strings"
)

// chartMark is a vertical line on a chart at X with a short label at its top: a change point on a history chart.
// NotJudged marks a step seen only with the invalid points counted: drawn grey and dotted (class "notjudged",
// never "change"), so that it is never read or counted as a verdict.
type chartMark struct {
	X         float64
	Label     string
	NotJudged bool
}

// svgMarks draws the marks of a chart inside its plot area (styled inline: pages without changes stay as they were).
// bottom is the plot's lower edge: a chart grows taller with its legend.
func svgMarks(b *strings.Builder, marks []chartMark, fx func(float64) float64, bottom int) {
	for i, m := range marks {
		x := fx(m.X)
		class, colour, dash := "change", "#D55E00", "4 3"
		if m.NotJudged {
			class, colour, dash = "notjudged", "#777777", "1 3"
		}
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="%s" stroke="%s" stroke-dasharray="%s"/>`, x, padTop, x, bottom,
			class, colour, dash)
		// neighbouring changes stagger their labels over three rows rather than print over each other
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="%s" fill="%s" font-size="11">%s</text>`+"\n", x+3, padTop+12+13*(i%3),
			class, colour, html.EscapeString(m.Label))
	}
}
