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

// historyChanges returns the marks of the changes that fall on a history chart — between the last run before and
// the first run after, both plotted — and one line per change for under the chart, with the facts that changed.
func historyChanges(points []historyPoint, runIndex map[int64]float64, changes []Change) ([]chartMark, []string) {
	keys := map[SampleKey]bool{}
	for _, p := range points {
		keys[p.Key] = true
	}
	var marks []chartMark
	var lines []string
	for _, c := range changes {
		x, ok := runIndex[c.Run]
		if _, okPrev := runIndex[c.PreviousRun]; !ok || !okPrev || !keys[c.Key()] {
			continue
		}
		marks = append(marks, chartMark{X: x - 0.5, Label: formatChange(c.Delta)})
		line := fmt.Sprintf("%s: %s at run %d (%s), p %s", c.Key().Label(), formatChange(c.Delta), c.Run,
			c.Date.Format("2006-01-02"), formatP(c.P))
		if len(c.FactsChanged) > 0 {
			line += "; changed between the runs: " + strings.Join(c.FactsChanged, "; ")
		}
		lines = append(lines, line)
	}
	return marks, lines
}

// writeChangeList prints the changes under a history chart.
func writeChangeList(ew *errWriter, lines []string) {
	if len(lines) == 0 {
		return
	}
	ew.printf("<ul class=\"changes\">\n")
	for _, l := range lines {
		ew.printf("<li>%s</li>\n", html.EscapeString(l))
	}
	ew.printf("</ul>\n")
}

// svgMarks draws the marks of a chart inside its plot area (styled inline: pages without changes stay as they were).
func svgMarks(b *strings.Builder, marks []chartMark, fx func(float64) float64) {
	for i, m := range marks {
		x := fx(m.X)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="change" stroke="#D55E00" stroke-dasharray="4 3"/>`, x, padTop, x, chartH-padBot)
		// neighbouring changes stagger their labels over three rows rather than print over each other
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="change" fill="#D55E00" font-size="11">%s</text>`+"\n", x+3, padTop+12+13*(i%3), html.EscapeString(m.Label))
	}
}
