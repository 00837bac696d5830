package report

import (
	"github.com/fleetlab/fleet/internal/textfit"
	"strings"
)

// proseWidth is where titles and notes of a fitted document wrap: prose reads best, and fits the classic
// terminal, at 80 columns even where a table needs up to the document's width.
const proseWidth = 80

// fitText splits a grouped table wider than width into tables of whole groups, each repeating the label
// columns of the first group, and wraps the title and notes. A table without groups is only wrapped.
func (t table) fitText(width int) []table {
	wrap := func(t table) table {
		if t.Title != "" {
			t.titleLines = textfit.Fold(t.Title, min(width, proseWidth), "")
		}
		var notes []string
		for _, n := range t.Notes {
			notes = append(notes, textfit.Fold(n, min(width, proseWidth)-2, "  ")...)
		}
		t.Notes = notes
		t.foldAt = width
		return t
	}
	if len(t.Groups) < 3 || spanWidth(t.widths()) <= width {
		return []table{wrap(t)}
	}
	label := t.Groups[0].Span
	var parts []table
	cur := t.slice(0, label, 1)
	first := label
	for gi := 1; gi < len(t.Groups); gi++ {
		g := t.Groups[gi]
		next := cur.append(t, first, g)
		if len(cur.Groups) > 1 && spanWidth(next.widths()) > width {
			parts = append(parts, cur)
			cur = t.slice(0, label, 1).append(t, first, g)
		} else {
			cur = next
		}
		first += g.Span
	}
	parts = append(parts, cur)
	for i := range parts {
		parts[i].Title, parts[i].Notes = "", nil
		if i == 0 {
			parts[i].Title, parts[i].Heading = t.Title, t.Heading
		} else if t.Title != "" {
			short, _, _ := strings.Cut(t.Title, " (") // the first part's title said what the cells are
			parts[i].Title = short + " (continued)"
		}
		if i == len(parts)-1 {
			parts[i].Notes = t.Notes
		}
		parts[i] = wrap(parts[i])
	}
	return parts
}

// slice is the table's columns [from, to) as one table whose groups are the first n groups.
func (t table) slice(from, to, n int) table {
	s := table{Title: t.Title, Notes: t.Notes, Left: min(t.Left, to-from), Groups: append([]group(nil), t.Groups[:n]...)}
	if t.Align != "" {
		s.Align = t.Align[from:min(to, len(t.Align))]
	}
	s.Header = append([]string(nil), t.Header[from:to]...)
	for _, r := range t.Rows {
		s.Rows = append(s.Rows, append([]string(nil), r[from:min(to, len(r))]...))
	}
	return s
}

// append adds group g of src, whose first column is first, to the right of s.
func (s table) append(src table, first int, g group) table {
	out := s
	out.Groups = append(append([]group(nil), s.Groups...), g)
	out.Header = append(append([]string(nil), s.Header...), src.Header[first:first+g.Span]...)
	if src.Align != "" {
		out.Align = s.Align + src.Align[first:first+g.Span]
	}
	out.Rows = make([][]string, len(s.Rows))
	for i, r := range s.Rows {
		out.Rows[i] = append(append([]string(nil), r...), src.Rows[i][first:min(first+g.Span, len(src.Rows[i]))]...)
	}
	return out
}
