package report

import (
	"fmt"
	"html"
	"io"
	"sort"

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
	Unit         string              // throughput unit, MB/s by default
	Comparison   *Comparison         // optional: computed from Measurements when nil (with SSH)
	SSH          *SSHComparison      // mode ssh's table; computed from Measurements when Comparison is nil
	Raw          []store.Measurement // the raw cipher points SSH's table sets its points against (store.DB.RawCipherPoints)
	Changes      []Change            // change points, marked on the history charts they fall on
	Size         int                 // block size of the board-against-board tables; 0 = the largest per algorithm
}

// WriteHTML renders one self-contained HTML file: inline CSS and inline SVG, no script, no font, no request to
// any network when it is viewed.
func WriteHTML(w io.Writer, data HTMLReport) error {
	c, ssh := data.Comparison, data.SSH
	if c == nil && ssh == nil && len(data.Measurements) > 0 {
		// One division of the points between the sweep comparison and mode ssh's table, the one of compare and
		// the dashboard: mode ssh's points drawn as an openssl chart would be a 67108864 B "aes128-ctr".
		v, err := NewCompareView(data.Measurements, data.Raw, CompareOptions{Unit: data.Unit}, FormatHTML)
		if err != nil {
			return fmt.Errorf("write html: %w", err)
		}
		c, ssh = v.Sweep, v.SSH
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
		if err := writeComparisonHTML(ew, c, data.Size); err != nil {
			return fmt.Errorf("write html: %w", err)
		}
	}
	if ssh != nil {
		ew.printf("<h2>SSH throughput</h2>\n")
		writeSSHHTML(ew, ssh)
	}
	if len(data.History) > 0 {
		ew.printf("<h2>History</h2>\n")
		writeHistoryHTML(ew, data.History, c, data.Changes)
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
svg .axis{font-size:12px;text-anchor:middle}svg .legend{font-size:12px}svg .value{font-size:11px}svg .unknown{fill:#777;font-style:italic}
div.boards{display:flex;flex-wrap:wrap;gap:0 28px;align-items:flex-start}
svg .marker{font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:13px}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
`

func writeRunsHTML(ew *errWriter, runs []store.Run) {
	if len(runs) == 0 {
		return
	}
	writeTableHTML(ew, runsTable(runs))
}

func writeTableHTML(ew *errWriter, t table) {
	ew.printf("<table>\n")
	if t.Title != "" {
		ew.printf("<caption>%s</caption>\n", html.EscapeString(t.Title))
	}
	if len(t.Groups) > 0 {
		ew.printf("<tr>")
		for _, g := range t.Groups {
			ew.printf("<th colspan=\"%d\">%s</th>", g.Span, html.EscapeString(g.Label))
		}
		ew.printf("</tr>\n")
	}
	ew.printf("<tr>")
	for _, h := range t.Header {
		ew.printf("<th>%s</th>", html.EscapeString(h))
	}
	ew.printf("</tr>\n")
	for r, row := range t.Rows {
		ew.printf("<tr>")
		for i, cell := range row {
			class := ""
			if !t.leftAligned(i) {
				class = ` class="num"`
			}
			text := html.EscapeString(cell)
			if k := t.link(r, i); ew.seriesHref != nil && k.Board != "" {
				text = `<a href="` + html.EscapeString(ew.seriesHref(k)) + `">` + text + `</a>`
			}
			ew.printf("<td%s>%s</td>", class, text)
		}
		ew.printf("</tr>\n")
	}
	ew.printf("</table>\n")
	for _, n := range t.Notes {
		ew.printf("<p class=\"notes\">%s</p>\n", html.EscapeString(n))
	}
}

// link is the series cell (row, col) links to; zero when none.
func (t table) link(row, col int) SampleKey {
	if row < len(t.Links) && col < len(t.Links[row]) {
		return t.Links[row][col]
	}
	return SampleKey{}
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
func writeHistoryHTML(ew *errWriter, hist map[string][]store.Measurement, c *Comparison, changes []Change) {
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
		points := historyPoints(hist[name])
		chart, ok := historyChart(name, points, unit, nil)
		if !ok {
			continue
		}
		keys := map[SampleKey]bool{}
		for _, p := range points {
			keys[p.Key] = true
		}
		var cs []Change
		for _, c := range changes {
			if keys[c.Key()] {
				cs = append(cs, c)
			}
		}
		markChanges(&chart, historyRunIndex(points), cs)
		ew.printf("%s", chart.svg())
		writeHistoryChanges(ew, cs, unit, nil, len(keys) > 1)
	}
}

func runLabel(id int64, label string) string {
	if label == "" {
		return fmt.Sprintf("#%d", id)
	}
	return fmt.Sprintf("#%d %s", id, label)
}
