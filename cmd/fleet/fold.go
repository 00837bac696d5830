package main

import (
	"strings"
	"unicode/utf8"
)

// width is how many columns s takes on a terminal (one a rune: the summaries print no wide characters).
func width(s string) int { return utf8.RuneCountInString(s) }

// fold breaks line into lines of at most summaryWidth columns, at spaces, each continuation line under indent
// (deeper than the line's own, so that a reader, and a test, sees it continues the one above). A word longer
// than a whole line (a long path) is cut where the line ends.
func fold(line, indent string) []string {
	if width(line) <= summaryWidth {
		return []string{line}
	}
	lead := len(line) - len(strings.TrimLeft(line, " "))
	var lines []string
	cur := line[:lead]
	room := func() int { return summaryWidth - width(cur) }
	for _, word := range strings.Fields(line[lead:]) {
		sep := " "
		if strings.TrimSpace(cur) == "" {
			sep = ""
		}
		if width(sep+word) > room() && strings.TrimSpace(cur) != "" {
			lines = append(lines, cur)
			cur, sep = indent, ""
		}
		for width(sep+word) > room() { // the word alone is too long: cut it
			r := []rune(word)
			n := room() - width(sep)
			lines = append(lines, cur+sep+string(r[:n]))
			cur, sep, word = indent, "", string(r[n:])
		}
		cur += sep + word
	}
	return append(lines, cur)
}

// appendFolded appends line, folded under indent, to lines.
func appendFolded(lines []string, line, indent string) []string {
	return append(lines, fold(line, indent)...)
}
