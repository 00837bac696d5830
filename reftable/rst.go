package reftable

import (
	"encoding/csv"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

var gridBorderRE = regexp.MustCompile(`^\+([-=]+\+)+$`)

// gridTable reads a reStructuredText grid table. Column boundaries are the '+' of its first border; a row may
// span several lines (their cells are joined with a space); the rows above a "+===+" border are the header,
// else the first row is. Cells spanning columns are refused: which column a figure belongs to would be a guess.
func (p *parser) gridTable(ls []line, i int) (rawTable, int, error) {
	first := ls[i].text
	indent := len(first) - len(strings.TrimLeft(first, " "))
	border := []rune(strings.TrimSpace(first))
	var cols []int // rune offsets of '+' in the border
	for k, r := range border {
		if r == '+' {
			cols = append(cols, k)
		}
	}
	t := rawTable{kind: "grid", line: ls[i].n}
	var header []rawRow
	var cur *rawRow
	flush := func() {
		if cur != nil {
			t.rows = append(t.rows, *cur)
			cur = nil
		}
	}
	for ; i < len(ls); i++ {
		raw := ls[i].text
		s := strings.TrimSpace(raw)
		if s == "" {
			break
		}
		ls[i].table = true
		if len(raw)-len(strings.TrimLeft(raw, " ")) != indent {
			return t, i, p.errorf(ls[i].n, "grid table line not aligned with its first border")
		}
		r := []rune(s)
		if gridBorderRE.MatchString(s) {
			if len(r) != len(border) || !sameJoints(r, cols) {
				return t, i, p.errorf(ls[i].n, "grid table border with other columns than the first: spanning cells are not read")
			}
			flush()
			if strings.Contains(s, "=") {
				if header != nil {
					return t, i, p.errorf(ls[i].n, "grid table with two header borders (+===+)")
				}
				header = t.rows
				t.rows = nil
			}
			continue
		}
		if len(r) != len(border) || r[0] != '|' {
			return t, i, p.errorf(ls[i].n, "grid table row of %d characters, its border has %d (ragged row)", len(r), len(border))
		}
		cells := make([]string, len(cols)-1)
		for c := 0; c+1 < len(cols); c++ {
			if r[cols[c]] != '|' || r[cols[c+1]] != '|' {
				return t, i, p.errorf(ls[i].n, "grid table cell spanning columns: not read")
			}
			cells[c] = strings.TrimSpace(string(r[cols[c]+1 : cols[c+1]]))
		}
		if cur == nil {
			cur = &rawRow{line: ls[i].n, cells: cells}
		} else {
			for c := range cells {
				cur.cells[c] = strings.TrimSpace(cur.cells[c] + " " + cells[c])
			}
		}
	}
	if cur != nil {
		return t, i, p.errorf(cur.line, "grid table row without a closing border")
	}
	if header != nil {
		if len(header) == 0 {
			return t, i, p.errorf(t.line, "grid table with an empty header")
		}
		h := header[0]
		for _, more := range header[1:] {
			for c := range h.cells {
				h.cells[c] = strings.TrimSpace(h.cells[c] + " " + more.cells[c])
			}
		}
		t.rows = append([]rawRow{h}, t.rows...)
	}
	return t, i, nil
}

func sameJoints(r []rune, cols []int) bool {
	n := 0
	for k, c := range r {
		if c == '+' {
			if n >= len(cols) || cols[n] != k {
				return false
			}
			n++
		}
	}
	return n == len(cols)
}

// csvTable reads a reStructuredText csv-table directive: its :header: (or :header-rows:) and :delim:
// options, then its indented rows, one record a line. Options that change what the rows mean and are not read
// here (:file:, :url:, :encoding:, :escape:, :quote:) are refused.
func (p *parser) csvTable(ls []line, i int) (rawTable, int, error) {
	start := ls[i]
	ls[i].table = true
	indent := len(start.text) - len(strings.TrimLeft(start.text, " "))
	t := rawTable{kind: "csv-table", line: start.n}
	delim := ','
	headerRows := 0
	var header []string
	headerLine := 0
	i++
	// Options: indented lines starting with ':' right under the directive.
	for ; i < len(ls); i++ {
		s := strings.TrimSpace(ls[i].text)
		if s == "" || !strings.HasPrefix(s, ":") || !indentedMore(ls[i].text, indent) {
			break
		}
		ls[i].table = true
		name, value, ok := strings.Cut(s[1:], ":")
		if !ok {
			return t, i, p.errorf(ls[i].n, "csv-table option %s without its closing ':'", quoteCell(s))
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "header":
			header, headerLine = nil, ls[i].n
			rec, err := csvRecord(value, delim)
			if err != nil {
				return t, i, p.errorf(ls[i].n, "csv-table :header: %v", err)
			}
			header = rec
		case "header-rows":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n > 8 {
				return t, i, p.errorf(ls[i].n, "csv-table :header-rows: %s: not 0 to 8", quoteCell(value))
			}
			headerRows = n
		case "delim":
			switch {
			case value == "tab":
				delim = '\t'
			case value == "space":
				delim = ' '
			case utf8.RuneCountInString(value) == 1 && value != "\"":
				delim, _ = utf8.DecodeRuneInString(value)
			default:
				return t, i, p.errorf(ls[i].n, "csv-table :delim: %s: not one character, tab or space", quoteCell(value))
			}
		case "file", "url", "encoding", "escape", "quote":
			return t, i, p.errorf(ls[i].n, "csv-table option :%s: is not read: paste the table's rows into the directive", name)
		}
	}
	var rows []rawRow
	for ; i < len(ls); i++ {
		s := strings.TrimSpace(ls[i].text)
		if s == "" {
			continue
		}
		if !indentedMore(ls[i].text, indent) {
			break
		}
		ls[i].table = true
		rec, err := csvRecord(s, delim)
		if err != nil {
			return t, i, p.errorf(ls[i].n, "csv-table row: %v", err)
		}
		rows = append(rows, rawRow{ls[i].n, trimAll(rec)})
	}
	switch {
	case header != nil && headerRows > 0:
		return t, i, p.errorf(headerLine, "csv-table with both :header: and :header-rows:: which is the header is ambiguous")
	case header != nil:
		t.rows = append([]rawRow{{headerLine, trimAll(header)}}, rows...)
	case headerRows > 0:
		if len(rows) < headerRows {
			return t, i, p.errorf(start.n, "csv-table with :header-rows: %d but %d rows", headerRows, len(rows))
		}
		h := rows[0]
		for _, more := range rows[1:headerRows] {
			if len(more.cells) != len(h.cells) {
				return t, i, p.errorf(more.line, "csv-table header rows of different widths")
			}
			for c := range h.cells {
				h.cells[c] = strings.TrimSpace(h.cells[c] + " " + more.cells[c])
			}
		}
		t.rows = append([]rawRow{h}, rows[headerRows:]...)
	default:
		return t, i, p.errorf(start.n, "csv-table without :header: or :header-rows:: which row is the header is ambiguous")
	}
	return t, i, nil
}

func indentedMore(s string, indent int) bool {
	return len(s)-len(strings.TrimLeft(s, " \t")) > indent
}

// csvRecord reads one line of CSV.
func csvRecord(s string, delim rune) ([]string, error) {
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = delim
	r.TrimLeadingSpace = delim != ' '
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) != 1 {
		return nil, errOneRecord
	}
	return recs[0], nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

const errOneRecord = errorString("not one record on one line")
