package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// EnergyChartsHTML draws, for a run's points that carry energy, one chart per algorithm of µJ per byte above
// idle against block size (a line per board and mode, a dashed line where an accelerator starts to cost less
// than its board's cpu path), for the dashboard's run page. "" when no point carries energy: a run of boards
// without a power source shows nothing, never a chart of zeros. Medians at or below idle (within a sensor's
// noise) cannot be drawn on the chart's scale; they are counted under it.
func EnergyChartsHTML(ms []store.Measurement) template.HTML {
	others, _ := SplitSSH(ms)
	c, err := Compare(others, CompareOptions{})
	if err != nil || !rowsHaveEnergy(c.Rows, nil) {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<section class="energy"><h3>Energy per byte</h3>` + "\n")
	names, rowsOf := c.rowsByName()
	for _, n := range names {
		chart, undrawn := c.energyChart(n, rowsOf[n])
		if len(chart.Lines) == 0 {
			continue
		}
		b.WriteString(chart.svg())
		if undrawn > 0 {
			fmt.Fprintf(&b, "<p class=\"hint\">%d median(s) at or below the board's idle power not drawn (within the sensor's noise).</p>\n", undrawn)
		}
	}
	b.WriteString("<p class=\"hint\">" + html.EscapeString(noteEnergy) + "</p></section>\n")
	return template.HTML(b.String())
}

// energyChart is one algorithm's µJ/B against block size, with the energy crossovers marked; undrawn counts the
// medians at or below zero left off it.
func (c *Comparison) energyChart(name string, rows []CompareRow) (chart lineChart, undrawn int) {
	chart = lineChart{Class: "chart energy", Title: name + ": energy per byte versus block size (lower is better)",
		XTitle: "block size (bytes, log scale)", YTitle: "µJ/B above idle", LogX: true}
	lineOf := map[Column]int{}
	for i, col := range c.Columns {
		var l chartLine
		for _, r := range rows {
			cell := r.Cells[i]
			if cell == nil || cell.UJPerByte == nil {
				continue
			}
			if v := *cell.UJPerByte; v > 0 {
				tip := fmt.Sprintf("%s %s, %d B: %s µJ/B, %s, CPU %s", col.Name(), name, r.BlockSize, formatUJ(v),
					formatValue(cell.Value)+" "+c.Unit, cpuText(cell))
				l.Points = append(l.Points, chartPoint{X: float64(r.BlockSize), Y: v, Lo: v, Hi: v, Tooltip: tip})
			} else {
				undrawn++
			}
		}
		if len(l.Points) > 0 {
			l.Name = col.Name()
			lineOf[col] = len(chart.Lines)
			chart.Lines = append(chart.Lines, l)
		}
	}
	for _, x := range c.EnergyCrossovers {
		if algoLabel(x.Algorithm, x.Op, x.Threads) != name || x.Never {
			continue
		}
		col := Column{Board: x.Board, Mode: x.Mode, Cluster: x.Cluster}
		line, ok := lineOf[col]
		if !ok {
			line = -1
		}
		chart.Markers = append(chart.Markers, chartMarker{X: float64(x.BlockSize), Line: line,
			Label: fmt.Sprintf("%s costs less than cpu from %d B", col.Name(), x.BlockSize)})
	}
	return chart, undrawn
}
