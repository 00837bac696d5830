package report

import (
	"fmt"
	"github.com/fleetlab/fleet/internal/textfit"
	"io"
	"strings"
)

// table is the layout every tabular renderer shares: the compare, regress and listing outputs are first laid out
// as tables, then printed as aligned text, Markdown or HTML.
type table struct {
	Title  string
	Header []string
	Rows   [][]string
	Left   int      // the first Left columns are labels, aligned left; the rest are numbers, aligned right
	Align  string   // when set, one letter per column, 'l' or 'r', instead of Left
	Notes  []string // footnotes printed under the table
	Groups []group  // when set, a heading row above Header naming runs of columns (a mode over MB/s and CPU)
	// Links, parallel to Rows (and shorter where cells have none), name the series a cell's HTML form links to;
	// a zero key links nothing. Text, Markdown and CSV ignore them.
	Links [][]SampleKey
	// titleLines, when set, is Title wrapped by fitText: each line is printed on its own (Printable would show
	// the newlines joining them as "\n").
	titleLines []string
	// Heading, when set, is a line of its own above the title in text (a board's run above its first table).
	Heading string
	// foldAt, set by fitText, is the width the text form keeps to by folding the last column's cells (a note, a
	// verdict, facts) onto lines of their own under it, when that column is text and the others leave it room.
	foldAt int
}

// group is a heading over Span adjacent columns; an empty Label leaves its columns without one.
type group struct {
	Label string
	Span  int
}

// document is a titled sequence of tables with footnotes for the whole. Width, when set, is the widest line
// the text form may print: grouped tables wider than that are split between groups, titles and notes wrapped.
type document struct {
	Title  string
	Tables []table
	Notes  []string
	Width  int
}

// writeText prints the document as aligned columns for a terminal.
func (d document) writeText(w io.Writer) error {
	ew := &errWriter{w: w}
	if d.Title != "" {
		ew.printf("%s\n\n", Printable(d.Title))
	}
	tables := d.Tables
	if d.Width > 0 {
		tables = nil
		for _, t := range d.Tables {
			tables = append(tables, t.fitText(d.Width)...)
		}
	}
	for i, t := range tables {
		if i > 0 {
			ew.printf("\n")
		}
		t.writeText(ew)
	}
	notes := d.Notes
	if d.Width > 0 {
		notes = nil
		for _, n := range d.Notes {
			notes = append(notes, textfit.Fold(n, proseWidth, "  ")...)
		}
	}
	writeNotesText(ew, notes)
	return ew.err
}

func writeNotesText(ew *errWriter, notes []string) {
	if len(notes) == 0 {
		return
	}
	ew.printf("\n")
	for _, n := range notes {
		ew.printf("%s\n", Printable(n))
	}
}

// minFoldedColumn is the narrowest a folded last column may become: "unchanged", "never", a short clause.
const minFoldedColumn = 12

func (t table) writeText(ew *errWriter) {
	if t.Heading != "" {
		ew.printf("%s\n", Printable(t.Heading))
	}
	switch {
	case len(t.titleLines) > 0:
		for _, l := range t.titleLines {
			ew.printf("%s\n", Printable(l))
		}
	case t.Title != "":
		ew.printf("%s\n", Printable(t.Title))
	}
	t = t.printable()
	widths := t.widths()
	if len(t.Groups) > 0 {
		ew.printf("%s\n", t.groupLine(widths))
	}
	line := func(row []string) {
		var b strings.Builder
		for i := range widths {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			pad := strings.Repeat(" ", max(widths[i]-textfit.Width(c), 0))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.leftAligned(i) {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		ew.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	last := len(widths) - 1
	room := 0
	if t.foldAt > 0 && last > 0 && t.leftAligned(last) && spanWidth(widths) > t.foldAt {
		room = t.foldAt - spanWidth(widths[:last]) - 2
		if room < minFoldedColumn {
			room = 0 // too narrow to read: the table stays wide
		} else {
			widths[last] = room
		}
	}
	line(t.Header)
	for _, row := range t.Rows {
		if room == 0 || len(row) <= last {
			line(row)
			continue
		}
		for i, piece := range textfit.Fold(row[last], room, "") {
			cells := make([]string, last+1)
			if i == 0 {
				copy(cells, row)
			}
			cells[last] = piece
			line(cells)
		}
	}
	for _, n := range t.Notes {
		ew.printf("  %s\n", n)
	}
}

// widths is the width of each column in runes, wide enough for every cell and for the group headings.
func (t table) widths() []int {
	widths := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			if i < len(widths) && textfit.Width(c) > widths[i] {
				widths[i] = textfit.Width(c)
			}
		}
	}
	first := 0
	for _, g := range t.Groups {
		last := min(first+g.Span, len(widths)) - 1
		if g.Label != "" && last >= first {
			// the label and one rule character on each side
			if short := textfit.Width(g.Label) + 4 - spanWidth(widths[first:last+1]); short > 0 {
				widths[last] += short
			}
		}
		first += g.Span
	}
	return widths
}

// spanWidth is the width of adjacent columns with the two-space gaps between them.
func spanWidth(widths []int) int {
	w := 2 * max(len(widths)-1, 0)
	for _, x := range widths {
		w += x
	}
	return w
}

// groupLine centres each group's label in a rule over its columns: "──── devcrypto ────".
func (t table) groupLine(widths []int) string {
	var b strings.Builder
	first := 0
	for gi, g := range t.Groups {
		last := min(first+g.Span, len(widths))
		if last <= first {
			break
		}
		if gi > 0 {
			b.WriteString("  ")
		}
		w := spanWidth(widths[first:last])
		if g.Label == "" {
			b.WriteString(strings.Repeat(" ", w))
		} else {
			rule := w - textfit.Width(g.Label) - 2
			left := rule / 2
			b.WriteString(strings.Repeat("─", left) + " " + g.Label + " " + strings.Repeat("─", rule-left))
		}
		first = last
	}
	return strings.TrimRight(b.String(), " ")
}

// flatHeader is the header with each group's label in front of its columns' names, for the forms that have
// no row of group headings (Markdown).
func (t table) flatHeader() []string {
	h := append([]string(nil), t.Header...)
	first := 0
	for _, g := range t.Groups {
		for i := first; i < first+g.Span && i < len(h); i++ {
			if g.Label != "" {
				h[i] = g.Label + " " + h[i]
			}
		}
		first += g.Span
	}
	return h
}

// printable returns t with every cell and note made Printable (a copy: the caller's rows stay as they are).
func (t table) printable() table {
	cells := func(row []string) []string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = Printable(c)
		}
		return out
	}
	t.Header = cells(t.Header)
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = cells(r)
	}
	t.Rows, t.Notes = rows, cells(t.Notes)
	return t
}

// leftAligned reports whether column i holds labels rather than numbers.
func (t table) leftAligned(i int) bool {
	if i < len(t.Align) {
		return t.Align[i] == 'l'
	}
	return i < t.Left
}

// writeMarkdown prints the document as GitHub-flavoured Markdown.
func (d document) writeMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	if d.Title != "" {
		ew.printf("# %s\n\n", mdEscape(d.Title))
	}
	for _, t := range d.Tables {
		if t.Title != "" {
			ew.printf("## %s\n\n", mdEscape(t.Title))
		}
		row := func(cells []string) {
			esc := make([]string, len(t.Header))
			for i := range esc {
				if i < len(cells) {
					esc[i] = mdEscape(cells[i])
				}
			}
			ew.printf("| %s |\n", strings.Join(esc, " | "))
		}
		row(t.flatHeader())
		seps := make([]string, len(t.Header))
		for i := range seps {
			seps[i] = "---:"
			if t.leftAligned(i) {
				seps[i] = "---"
			}
		}
		ew.printf("| %s |\n", strings.Join(seps, " | "))
		for _, r := range t.Rows {
			row(r)
		}
		if len(t.Notes) > 0 {
			ew.printf("\n")
			for _, n := range t.Notes {
				ew.printf("%s\n", mdEscape(n))
			}
		}
		ew.printf("\n")
	}
	if len(d.Notes) > 0 {
		for _, n := range d.Notes {
			ew.printf("- %s\n", mdEscape(n))
		}
	}
	return ew.err
}

// mdEscape keeps table syntax and emphasis characters literal.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;")
	return r.Replace(Printable(s))
}

// errWriter remembers the first write error so renderers can print freely and check once.
type errWriter struct {
	w   io.Writer
	err error
	// seriesHref, when set, is where an HTML table's cell with a link key points (the dashboard's history page
	// of the series); nil: nowhere, as in the self-contained report.
	seriesHref func(SampleKey) string
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
