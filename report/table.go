package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
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
}

// document is a titled sequence of tables with footnotes for the whole.
type document struct {
	Title  string
	Tables []table
	Notes  []string
}

// writeText prints the document as aligned columns for a terminal.
func (d document) writeText(w io.Writer) error {
	ew := &errWriter{w: w}
	if d.Title != "" {
		ew.printf("%s\n\n", Printable(d.Title))
	}
	for i, t := range d.Tables {
		if i > 0 {
			ew.printf("\n")
		}
		t.writeText(ew)
	}
	writeNotesText(ew, d.Notes)
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

func (t table) writeText(ew *errWriter) {
	if t.Title != "" {
		ew.printf("%s\n", Printable(t.Title))
	}
	t = t.printable()
	widths := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			if i < len(widths) && utf8.RuneCountInString(c) > widths[i] {
				widths[i] = utf8.RuneCountInString(c)
			}
		}
	}
	line := func(row []string) {
		var b strings.Builder
		for i := range widths {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
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
	line(t.Header)
	for _, row := range t.Rows {
		line(row)
	}
	for _, n := range t.Notes {
		ew.printf("  %s\n", n)
	}
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
		row(t.Header)
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
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
