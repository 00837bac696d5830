package report

import (
	"fmt"
	"html"
	"sort"
	"strings"
)

// writeComparisonHTML prints the comparison one algorithm at a time: its throughput chart first, with the block
// size from which each accelerator beats the cpu path marked on it; then each board's vendor-guide table; then,
// with several boards, the boards against each other at one block size (size, or the largest measured); then CPU %
// at the largest size. Modes, rows and series without a measurement are left out. Asymmetric operations and the
// notes follow.
func writeComparisonHTML(ew *errWriter, c *Comparison, size int) error {
	var algs []string
	rowsOf := map[string][]CompareRow{}
	for _, r := range c.Rows {
		if _, ok := rowsOf[r.Algorithm]; !ok {
			algs = append(algs, r.Algorithm)
		}
		rowsOf[r.Algorithm] = append(rowsOf[r.Algorithm], r)
	}
	if size > 0 {
		found := false
		for _, r := range c.Rows {
			found = found || r.BlockSize == size
		}
		if !found {
			return fmt.Errorf("board-against-board tables at %d B: %w (measured: %s)", size, ErrSizeNotMeasured, c.blockSizes())
		}
	}
	boards := c.boards()
	legend := false
	for _, alg := range algs {
		chart, bars, notes := c.algorithmChart(alg, rowsOf[alg])
		ew.printf("<h3>%s</h3>\n%s", html.EscapeString(alg), chart.svg())
		if len(notes) > 0 {
			ew.printf("<p class=\"notes\">%s</p>\n", html.EscapeString(strings.Join(notes, "; ")))
		}
		names, byName := (&Comparison{Columns: c.Columns, Rows: rowsOf[alg]}).rowsByName()
		ew.printf("<div class=\"boards\">\n")
		for _, b := range boards {
			for _, n := range names {
				if t, ok := c.boardTable(b, byName[n]); ok {
					t.Title = strings.Replace(t.Title, " (", c.runsSuffix(b)+" (", 1) // the run each board's table is from
					legend = legend || hasSpeedupColumn(t)
					ew.printf("<div>\n") // keeps a table's notes under it in the row of tables
					writeTableHTML(ew, t)
					ew.printf("</div>\n")
				}
			}
		}
		ew.printf("</div>\n")
		if len(boards) > 1 {
			for _, n := range names {
				at := size
				if at == 0 {
					at = c.defaultSize(byName[n])
				}
				if t, ok := c.boardsTable(byName[n], at); ok {
					legend = true
					writeTableHTML(ew, t)
				}
			}
		}
		ew.printf("%s", barChart(fmt.Sprintf("%s: CPU %% at the largest block size (100%% = one core)", alg), bars))
	}
	var asym []table
	for _, b := range boards {
		if t, ok := c.boardAsymTable(b); ok {
			asym = append(asym, t)
		}
	}
	if len(asym) > 0 {
		ew.printf("<h3>Asymmetric operations</h3>\n<div class=\"boards\">\n")
		for _, t := range asym {
			ew.printf("<div>\n")
			writeTableHTML(ew, t)
			ew.printf("</div>\n")
		}
		ew.printf("</div>\n")
	}
	var notes []string
	if legend {
		notes = append(notes, noteSpeedup)
	}
	if c.cpuTimed() {
		notes = append(notes, noteCPUTimed)
	}
	notes = append(notes, c.Warnings...)
	if len(notes) > 0 {
		ew.printf("<ul class=\"notes\">\n")
		for _, n := range notes {
			ew.printf("<li>%s</li>\n", html.EscapeString(n))
		}
		ew.printf("</ul>\n")
	}
	return nil
}

// algorithmChart is one algorithm's throughput against block size, a line per board, mode and, where they vary,
// operation and threads, with a dashed vertical line where an accelerator starts to beat its board's cpu path;
// the CPU % of each line at its largest block size; and the crossovers in words (those that never happen too).
func (c *Comparison) algorithmChart(alg string, rows []CompareRow) (lineChart, []bar, []string) {
	type lineKey struct {
		col     Column
		op      string
		threads int
	}
	lines := map[lineKey]*chartLine{}
	var order []lineKey
	largest := map[lineKey]*Cell{}
	largestSize := map[lineKey]int{}
	for _, r := range rows {
		for _, cell := range r.Cells {
			if cell == nil {
				continue
			}
			k := lineKey{Column{Board: cell.Board, Mode: cell.Mode, Cluster: cell.Cluster}, r.Op, r.Threads}
			l := lines[k]
			if l == nil {
				name := cell.Board + " " + cell.Mode
				if extra := strings.TrimSpace(algoLabel("", r.Op, r.Threads)); extra != "" {
					name += " " + extra
				}
				l = &chartLine{Name: name}
				lines[k] = l
				order = append(order, k)
			}
			v, lo, hi := inUnit(cell.Median, c.Unit), inUnit(cell.Min, c.Unit), inUnit(cell.Max, c.Unit)
			tip := fmt.Sprintf("%s %s, %d B: %s %s ±%s (n=%d), CPU %s", l.Name, alg, r.BlockSize,
				formatValue(v), c.Unit, formatPct(cell.Spread), cell.N, cpuText(cell))
			l.Points = append(l.Points, chartPoint{X: float64(r.BlockSize), Y: v, Lo: lo, Hi: hi, Tooltip: tip,
				Invalid: cell.N > 0 && cell.Invalid == cell.N})
			if r.BlockSize >= largestSize[k] {
				largestSize[k], largest[k] = r.BlockSize, cell
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.col != b.col {
			return columnIndex(c.Columns, a.col) < columnIndex(c.Columns, b.col)
		}
		if a.op != b.op {
			return opRank(a.op) < opRank(b.op)
		}
		return a.threads < b.threads
	})
	chart := lineChart{Class: "chart", Title: alg + ": throughput versus block size", XTitle: "block size (bytes, log scale)",
		YTitle: c.Unit, LogX: true}
	var bars []bar
	for _, k := range order {
		chart.Lines = append(chart.Lines, *lines[k])
		// an exact 0 is unknown, as cpuText says: a command that ran always used some CPU
		bars = append(bars, bar{Label: lines[k].Name, Value: largest[k].CPUPct, Unknown: largest[k].CPUPct == 0})
	}
	var words []string
	for _, x := range c.Crossovers {
		if x.Algorithm != alg {
			continue
		}
		name := x.Board + " " + x.Mode
		if extra := strings.TrimSpace(algoLabel("", x.Op, x.Threads)); extra != "" {
			name += " " + extra
		}
		if x.Never {
			words = append(words, name+" never beats cpu")
			continue
		}
		line := -1
		for i, k := range order {
			if k == (lineKey{Column{Board: x.Board, Mode: x.Mode, Cluster: x.Cluster}, x.Op, x.Threads}) {
				line = i
			}
		}
		label := fmt.Sprintf("%s beats cpu from %d B", name, x.BlockSize)
		chart.Markers = append(chart.Markers, chartMarker{X: float64(x.BlockSize), Label: label, Line: line})
		words = append(words, label+" (dashed line)")
	}
	if len(words) > 0 {
		words[0] = "Crossover: " + words[0]
	}
	return chart, bars, words
}
