package report

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// HTMLReport is everything one report page shows. Measurements are normally the latest run of each board;
// History maps a series name (a heading) to its measurements over several runs.
type HTMLReport struct {
	Title        string
	Runs         []store.Run
	Measurements []store.Measurement
	BoardRuns    []store.BoardRun
	History      map[string][]store.Measurement
	Unit         string      // throughput unit, MB/s by default
	Comparison   *Comparison // optional: computed from Measurements when nil
}

// WriteHTML renders one self-contained HTML file: inline CSS and inline SVG, no script, no font, no request to
// any network when it is viewed.
func WriteHTML(w io.Writer, data HTMLReport) error {
	c := data.Comparison
	if c == nil && len(data.Measurements) > 0 {
		var err error
		c, err = Compare(data.Measurements, CompareOptions{Unit: data.Unit})
		if err != nil {
			return fmt.Errorf("write html: %w", err)
		}
	}
	title := data.Title
	if title == "" {
		title = "fleet report"
	}
	ew := &errWriter{w: w}
	ew.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		html.EscapeString(title), pageCSS)
	ew.printf("<h1>%s</h1>\n", html.EscapeString(title))
	writeRunsHTML(ew, data.Runs)
	for _, n := range emulationNotes(data.BoardRuns) {
		ew.printf("<p class=\"warning\">%s</p>\n", html.EscapeString(n))
	}
	if c != nil {
		ew.printf("<h2>Comparison</h2>\n")
		writeDocumentHTML(ew, c.document())
		ew.printf("<h2>Throughput versus block size</h2>\n")
		writeChartsHTML(ew, c)
	}
	if len(data.History) > 0 {
		ew.printf("<h2>History</h2>\n")
		writeHistoryHTML(ew, data.History, c)
	}
	if len(data.BoardRuns) > 0 {
		ew.printf("<h2>Boards</h2>\n")
		for _, br := range data.BoardRuns {
			writeBoardHTML(ew, br)
		}
	}
	ew.printf("</body>\n</html>\n")
	return ew.err
}

const pageCSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1180px}
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}h3{margin-bottom:.3em}
table{border-collapse:collapse;margin:.6em 0 1em}
th,td{border:1px solid #ddd;padding:3px 8px;font-size:13px}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{text-align:left;font-weight:600;padding:4px 0}
.notes{font-size:13px;color:#444}.warning{background:#fff4e5;border-left:4px solid #e69f00;padding:6px 10px}
svg{display:block;margin:.4em 0 1em;font-family:inherit}
svg .title{font-size:14px;font-weight:600}svg .grid{stroke:#e4e4e4}svg .frame{fill:none;stroke:#888}
svg .xtick{font-size:11px;text-anchor:middle}svg .ytick{font-size:11px;text-anchor:end}
svg .axis{font-size:12px;text-anchor:middle}svg .legend{font-size:12px}svg .value{font-size:11px}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:13px}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
`

func writeRunsHTML(ew *errWriter, runs []store.Run) {
	if len(runs) == 0 {
		return
	}
	writeTableHTML(ew, runsTable(runs))
}

// writeDocumentHTML prints a document's tables and notes.
func writeDocumentHTML(ew *errWriter, d document) {
	for _, t := range d.Tables {
		writeTableHTML(ew, t)
	}
	if len(d.Notes) > 0 {
		ew.printf("<ul class=\"notes\">\n")
		for _, n := range d.Notes {
			ew.printf("<li>%s</li>\n", html.EscapeString(n))
		}
		ew.printf("</ul>\n")
	}
}

func writeTableHTML(ew *errWriter, t table) {
	ew.printf("<table>\n")
	if t.Title != "" {
		ew.printf("<caption>%s</caption>\n", html.EscapeString(t.Title))
	}
	ew.printf("<tr>")
	for _, h := range t.Header {
		ew.printf("<th>%s</th>", html.EscapeString(h))
	}
	ew.printf("</tr>\n")
	for _, row := range t.Rows {
		ew.printf("<tr>")
		for i, cell := range row {
			class := ""
			if !t.leftAligned(i) {
				class = ` class="num"`
			}
			ew.printf("<td%s>%s</td>", class, html.EscapeString(cell))
		}
		ew.printf("</tr>\n")
	}
	ew.printf("</table>\n")
	for _, n := range t.Notes {
		ew.printf("<p class=\"notes\">%s</p>\n", html.EscapeString(n))
	}
}

// writeChartsHTML draws one throughput chart per algorithm (one line per board, mode and, where they vary,
// operation and threads), then the CPU % of each line at the largest block size.
func writeChartsHTML(ew *errWriter, c *Comparison) {
	var algs []string
	rowsOf := map[string][]CompareRow{}
	for _, r := range c.Rows {
		if _, ok := rowsOf[r.Algorithm]; !ok {
			algs = append(algs, r.Algorithm)
		}
		rowsOf[r.Algorithm] = append(rowsOf[r.Algorithm], r)
	}
	for _, alg := range algs {
		rows := rowsOf[alg]
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
				k := lineKey{Column{cell.Board, cell.Mode}, r.Op, r.Threads}
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
				tip := fmt.Sprintf("%s %s, %d B: %s %s ±%s (n=%d), CPU %.0f%%", l.Name, alg, r.BlockSize,
					formatValue(v), c.Unit, formatPct(cell.Spread), cell.N, cell.CPUPct)
				l.Points = append(l.Points, chartPoint{X: float64(r.BlockSize), Y: v, Lo: lo, Hi: hi, Tooltip: tip})
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
			bars = append(bars, bar{Label: lines[k].Name, Value: largest[k].CPUPct})
		}
		ew.printf("<h3>%s</h3>\n%s", html.EscapeString(alg), chart.svg())
		ew.printf("%s", barChart(fmt.Sprintf("%s: CPU %% at the largest block size (100%% = one core)", alg), bars))
	}
}

func columnIndex(cols []Column, c Column) int {
	for i, x := range cols {
		if x == c {
			return i
		}
	}
	return len(cols)
}

// writeHistoryHTML draws one chart per named history: the median of each run, with min-max whiskers.
func writeHistoryHTML(ew *errWriter, hist map[string][]store.Measurement, c *Comparison) {
	unit := DefaultUnit
	if c != nil {
		unit = c.Unit
	}
	var names []string
	for n := range hist {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if chart, ok := historyChart(name, historyPoints(hist[name]), unit, nil); ok {
			ew.printf("%s", chart.svg())
		}
	}
}

func runLabel(id int64, label string) string {
	if label == "" {
		return fmt.Sprintf("#%d", id)
	}
	return fmt.Sprintf("#%d %s", id, label)
}
