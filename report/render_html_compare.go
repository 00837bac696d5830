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
	if size > 0 && !hasSize(c.Rows, size) {
		return fmt.Errorf("board-against-board tables at %d B: %w (measured: %s)", size, ErrSizeNotMeasured, c.blockSizes())
	}
	legend := false
	algs, rowsOf := c.rowsByAlgorithm()
	for _, alg := range algs {
		if c.writeAlgorithmHTML(ew, alg, rowsOf[alg], size) {
			legend = true
		}
	}
	c.writeAsymHTML(ew)
	c.writeNotesHTML(ew, legend)
	return nil
}

// rowsByAlgorithm are the algorithms of the rows in their order, and each one's rows.
func (c *Comparison) rowsByAlgorithm() ([]string, map[string][]CompareRow) {
	var algs []string
	rowsOf := map[string][]CompareRow{}
	for _, r := range c.Rows {
		if _, ok := rowsOf[r.Algorithm]; !ok {
			algs = append(algs, r.Algorithm)
		}
		rowsOf[r.Algorithm] = append(rowsOf[r.Algorithm], r)
	}
	return algs, rowsOf
}

// writeAlgorithmHTML prints one algorithm's part of the page: its chart and crossovers, each board's tables,
// the boards against each other at size (0: each row name's default size) and the CPU % bars. It reports
// whether a table it printed shows speedups, which the notes' legend then explains.
func (c *Comparison) writeAlgorithmHTML(ew *errWriter, alg string, rows []CompareRow, size int) (legend bool) {
	chart, bars, notes := c.algorithmChart(alg, rows)
	ew.printf("<h3>%s</h3>\n%s", html.EscapeString(alg), chart.svg())
	if len(notes) > 0 {
		ew.printf("<p class=\"notes\">%s</p>\n", html.EscapeString(strings.Join(notes, "; ")))
	}
	names, byName := (&Comparison{Columns: c.Columns, Rows: rows}).rowsByName()
	boards := c.boards()
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
	return legend
}

// writeAsymHTML prints each board's table of asymmetric operations side by side, under one heading; nothing
// when no board measured any.
func (c *Comparison) writeAsymHTML(ew *errWriter) {
	var asym []table
	for _, b := range c.boards() {
		if t, ok := c.boardAsymTable(b); ok {
			asym = append(asym, t)
		}
	}
	if len(asym) == 0 {
		return
	}
	ew.printf("<h3>Asymmetric operations</h3>\n<div class=\"boards\">\n")
	for _, t := range asym {
		ew.printf("<div>\n")
		writeTableHTML(ew, t)
		ew.printf("</div>\n")
	}
	ew.printf("</div>\n")
}

// writeNotesHTML prints the page's notes: the speedup legend when a table needed it, the † of CPU-timed cells,
// and the comparison's warnings.
func (c *Comparison) writeNotesHTML(ew *errWriter, legend bool) {
	var notes []string
	if legend {
		notes = append(notes, noteSpeedup)
	}
	if c.cpuTimed() {
		notes = append(notes, noteCPUTimed)
	}
	notes = append(notes, c.Warnings...)
	if len(notes) == 0 {
		return
	}
	ew.printf("<ul class=\"notes\">\n")
	for _, n := range notes {
		ew.printf("<li>%s</li>\n", html.EscapeString(n))
	}
	ew.printf("</ul>\n")
}

// chartLineKey is one line of an algorithm's chart: a column, and the operation and threads where they vary.
type chartLineKey struct {
	col     Column
	op      string
	threads int
}

// lineName is a chart line's name: "am64x devcrypto", with the operation and threads where not the defaults.
func lineName(board, mode, op string, threads int) string {
	name := board + " " + mode
	if extra := strings.TrimSpace(algoLabel("", op, threads)); extra != "" {
		name += " " + extra
	}
	return name
}

// algorithmChart is one algorithm's throughput against block size, a line per board, mode and, where they vary,
// operation and threads, with a dashed vertical line where an accelerator starts to beat its board's cpu path;
// the CPU % of each line at its largest block size; and the crossovers in words (those that never happen too).
func (c *Comparison) algorithmChart(alg string, rows []CompareRow) (lineChart, []bar, []string) {
	lines, order, largest := c.throughputLines(alg, rows)
	chart := lineChart{Class: "chart", Title: alg + ": throughput versus block size", XTitle: "block size (bytes, log scale)",
		YTitle: c.Unit, LogX: true}
	var bars []bar
	for _, k := range order {
		chart.Lines = append(chart.Lines, *lines[k])
		// an exact 0 is unknown, as cpuText says: a command that ran always used some CPU
		bars = append(bars, bar{Label: lines[k].Name, Value: largest[k].CPUPct, Unknown: largest[k].CPUPct == 0})
	}
	words := c.markCrossovers(&chart, alg, order)
	return chart, bars, words
}

// throughputLines are the chart's lines of the rows, a point per block size with its spread and tooltip, in the
// order of the columns, then of operation and threads; and each line's cell at its largest block size.
func (c *Comparison) throughputLines(alg string, rows []CompareRow) (map[chartLineKey]*chartLine, []chartLineKey, map[chartLineKey]*Cell) {
	lines := map[chartLineKey]*chartLine{}
	var order []chartLineKey
	largest := map[chartLineKey]*Cell{}
	largestSize := map[chartLineKey]int{}
	for _, r := range rows {
		for _, cell := range r.Cells {
			if cell == nil {
				continue
			}
			k := chartLineKey{Column{Board: cell.Board, Mode: cell.Mode, Cluster: cell.Cluster}, r.Op, r.Threads}
			l := lines[k]
			if l == nil {
				l = &chartLine{Name: lineName(cell.Board, cell.Mode, r.Op, r.Threads)}
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
	return lines, order, largest
}

// markCrossovers puts a dashed marker on the chart at each crossover of the algorithm, on its line (order is
// the chart's lines), and returns the crossovers in words, those that never happen too.
func (c *Comparison) markCrossovers(chart *lineChart, alg string, order []chartLineKey) []string {
	var words []string
	for _, x := range c.Crossovers {
		if x.Algorithm != alg {
			continue
		}
		name := lineName(x.Board, x.Mode, x.Op, x.Threads)
		if x.Never {
			words = append(words, name+" never beats cpu")
			continue
		}
		line := -1
		for i, k := range order {
			if k == (chartLineKey{Column{Board: x.Board, Mode: x.Mode, Cluster: x.Cluster}, x.Op, x.Threads}) {
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
	return words
}
