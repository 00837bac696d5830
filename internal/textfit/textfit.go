// Package textfit fits text to a terminal: the display width of a string and the folding of long lines. It is
// the one home of folding (report's notes and titles, the CLI's help and error messages, the reference lines),
// so that every front end keeps to the same columns by the same rules. Tables are laid out by report, which
// splits them between column groups and folds only their prose here.
package textfit

import (
	"strings"

	xwidth "golang.org/x/text/width"
)

// Fold breaks s into lines no wider than width display columns (Width: "─" is one column, a CJK character
// two). A line that already fits is returned as it is, spacing and all (aligned columns stay aligned); a longer
// one breaks at spaces, runs of spaces between words becoming one, each line after the first starting with indent. A word
// wider than the line breaks after its last ":", "/", "," or ";" that fits (an OpenSSL error
// "lib:func:reason:file:line", a path), and stays whole only when it has none. "99 %" is
// one word, so that no line starts with a lone "%".
func Fold(s string, width int, indent string) []string {
	if Width(s) <= width {
		return []string{s}
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))] // the first line keeps its own indentation
	glued := strings.ReplaceAll(s, " %", "\x00%")
	var lines []string
	line, lineW := "", 0
	type piece struct {
		text string
		cont bool // the rest of a word cut by splitLong: on a line of its own, never after a space
	}
	var words []piece
	for _, w := range strings.Fields(glued) {
		for i, p := range splitLong(strings.ReplaceAll(w, "\x00", " "), width-Width(indent)) {
			words = append(words, piece{p, i > 0})
		}
	}
	for _, p := range words {
		word, ww := p.text, Width(p.text)
		switch {
		case line == "":
			line, lineW = lead+word, Width(lead)+ww
		case p.cont || lineW+1+ww > width:
			lines = append(lines, line)
			line, lineW = indent+word, Width(indent)+ww
		default:
			line, lineW = line+" "+word, lineW+1+ww
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// splitLong cuts a word wider than room after punctuation, each piece as wide as room allows.
func splitLong(word string, room int) []string {
	var pieces []string
	for Width(word) > room && room > 0 {
		cut, w := -1, 0
		for i, r := range word {
			if w += Width(string(r)); w > room {
				break
			}
			if strings.ContainsRune(":/,;", r) && i+1 < len(word) {
				cut = i + 1
			}
		}
		if cut <= 0 {
			break
		}
		pieces, word = append(pieces, word[:cut]), word[cut:]
	}
	return append(pieces, word)
}

// FoldLines folds each line of text (see Fold) and joins them again, ending with a newline when text did.
func FoldLines(text string, width int, indent string) string {
	trailing := strings.HasSuffix(text, "\n")
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		out = append(out, Fold(l, width, indent)...)
	}
	s := strings.Join(out, "\n")
	if trailing {
		s += "\n"
	}
	return s
}

// Width is the number of terminal columns s takes: East Asian wide and fullwidth characters count two,
// every other character one (the box drawing, dashes and µ fleet prints are narrow). golang.org/x/text/width
// holds Unicode's East Asian Width table; a copy of our own would go stale with each Unicode version.
func Width(s string) int {
	n := 0
	for _, r := range s {
		switch xwidth.LookupRune(r).Kind() {
		case xwidth.EastAsianWide, xwidth.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}
