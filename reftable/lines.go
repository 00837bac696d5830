package reftable

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLineBytes bounds one line: a table row of a guide is well under a hundred characters.
const maxLineBytes = 16 << 10

// line is one line of the file, numbered from 1.
type line struct {
	n     int
	text  string // without the line break; no-break spaces made spaces
	table bool   // part of a table, not prose
}

// rawTable is a table as laid out, before its columns are understood: rows[0] is the header.
type rawTable struct {
	kind  string // how it was laid out, in errors: "tab-separated", "Markdown", …
	line  int
	title string // the prose before it, which may give its unit
	rows  []rawRow
	err   error // its layout could not be read (a ragged row, a spanning cell): the table is skipped
}

type rawRow struct {
	line  int
	cells []string
}

// lines splits data into lines, refusing what no pasted table has: bytes that are not UTF-8, control
// characters (a tab and a line's trailing carriage return excepted) and very long lines. source is the text of
// the first "# source:" line.
func (p *parser) lines(data []byte) (out []line, source string, err error) {
	text := strings.TrimPrefix(string(data), "\uFEFF")
	for i, s := range strings.Split(text, "\n") {
		n := i + 1
		s = strings.TrimSuffix(s, "\r")
		if len(s) > maxLineBytes {
			return nil, "", p.errorf(n, "line of %d bytes: longer than any table row (%d at most)", len(s), maxLineBytes)
		}
		if !utf8.ValidString(s) {
			return nil, "", p.errorf(n, "bytes that are not UTF-8")
		}
		for _, r := range s {
			if r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
				return nil, "", p.errorf(n, "control character %s", strconv.QuoteRune(r))
			}
		}
		s = strings.ReplaceAll(s, "\u00a0", " ")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s), "#"); ok && source == "" {
			if src, ok := cutFold(strings.TrimSpace(rest), "source:"); ok {
				source = strings.TrimSpace(src)
			}
		}
		out = append(out, line{n: n, text: s})
	}
	return out, source, nil
}

// cutFold is strings.CutPrefix ignoring case.
func cutFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// segment finds the tables of the file in order, each with the prose since the previous one as its title.
func (p *parser) segment(ls []line) error {
	var title []string
	add := func(t rawTable) {
		t.title = strings.Join(title, " / ")
		title = nil
		p.tables = append(p.tables, t)
	}
	for i := 0; i < len(ls); {
		s := strings.TrimSpace(ls[i].text)
		switch {
		case s == "" || strings.HasPrefix(s, "#"):
			i++
		case strings.HasPrefix(s, ".. csv-table::"):
			t, next, err := p.csvTable(ls, i)
			if err != nil {
				return err
			}
			title = append(title, strings.TrimSpace(strings.TrimPrefix(s, ".. csv-table::")))
			add(t)
			i = next
		case strings.HasPrefix(s, ".. "):
			i++ // another directive or a comment of reStructuredText
		case gridBorderRE.MatchString(s):
			t, next, err := p.gridTable(ls, i)
			if err != nil {
				t.err, next = err, blockEnd(ls, i, false)
			}
			add(t)
			i = next
		case strings.HasPrefix(s, "|"):
			t, next, err := p.markdownTable(ls, i)
			if err != nil {
				t.err, next = err, blockEnd(ls, i, true)
			}
			add(t)
			i = next
		case strings.Contains(ls[i].text, "\t"):
			t := rawTable{kind: "tab-separated", line: ls[i].n}
			for ; i < len(ls) && strings.TrimSpace(ls[i].text) != ""; i++ {
				ls[i].table = true
				t.rows = append(t.rows, rawRow{ls[i].n, trimAll(strings.Split(strings.TrimRight(ls[i].text, " "), "\t"))})
			}
			add(t)
		default:
			j := i
			for ; j < len(ls); j++ {
				s := strings.TrimSpace(ls[j].text)
				if s == "" || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "|") || strings.HasPrefix(s, ".. ") ||
					gridBorderRE.MatchString(s) || strings.Contains(ls[j].text, "\t") {
					break
				}
			}
			if err := p.plainBlock(ls[i:j], &title, add); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// blockEnd is the index after the table starting at ls[i] whose layout could not be read, so that reading goes on
// after it: the lines starting with '|' (pipe, Markdown), else every line up to a blank one (a grid table).
func blockEnd(ls []line, i int, pipe bool) int {
	for ; i < len(ls); i++ {
		s := strings.TrimSpace(ls[i].text)
		if s == "" || (pipe && !strings.HasPrefix(s, "|")) {
			break
		}
		ls[i].table = true
	}
	return i
}

func trimAll(cells []string) []string {
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

// markdownTable reads a pipe table: a header row, a separator row (|---|:---:|), then rows.
func (p *parser) markdownTable(ls []line, i int) (rawTable, int, error) {
	t := rawTable{kind: "Markdown", line: ls[i].n}
	sep := false
	for ; i < len(ls) && strings.HasPrefix(strings.TrimSpace(ls[i].text), "|"); i++ {
		ls[i].table = true
		s := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(ls[i].text), "|"), "|")
		cells := trimAll(strings.Split(s, "|"))
		if mdSeparator(cells) {
			if len(t.rows) != 1 || sep {
				return t, i, p.errorf(ls[i].n, "Markdown separator row not right under one header row")
			}
			sep = true
			continue
		}
		if len(t.rows) == 1 && !sep {
			return t, i, p.errorf(ls[i].n, "Markdown table without a separator row (|---|) under its header: which row is the header is ambiguous")
		}
		t.rows = append(t.rows, rawRow{ls[i].n, cells})
	}
	if !sep {
		return t, i, p.errorf(t.line, "Markdown table without a separator row (|---|) under its header")
	}
	return t, i, nil
}

func mdSeparator(cells []string) bool {
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		c = strings.Trim(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}
