package report

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s with everything a terminal would act on made visible as a Go escape: control characters
// (C0 with newline and tab, DEL, C1) and bytes that are not UTF-8, e.g. "aes\x00-128-cbc" or "\x1b[2J". Text
// stored from a capture, a label or a board's tool output can then neither break a table's rows nor move the
// cursor, clear the screen or retitle the window. Every text renderer passes each cell through it.
func Printable(s string) string { return printable(s, false) }

// PrintableText is Printable for multi-line text (a tool's raw output, a message of several lines of the
// controller's own around what a board said): newlines and tabs stay.
func PrintableText(s string) string { return printable(s, true) }

func printable(s string, keepLines bool) string {
	clean := func(r rune, size int) bool {
		if r == utf8.RuneError && size == 1 {
			return false
		}
		return !unicode.IsControl(r) || keepLines && (r == '\n' || r == '\t')
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !clean(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case clean(r, size):
			b.WriteString(s[i : i+size])
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\n', '\u009b'
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}
