package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestValidityLinesFitTheSummary: the verdict of a busy board (three long reasons, seen on the local board of a
// shared VM: 200 columns on one line) ends fleet run within the summary's 100 columns, one reason a line.
func TestValidityLinesFitTheSummary(t *testing.T) {
	reasons := []string{"7 of 24 points invalid (first: background CPU 8.9 % (limit 8 %))",
		"1 of 24 points suspect (first: background CPU 3.2 % (suspect above 2 %))",
		"mean background CPU 10.9 % over 24 points (suspect above 2 %)"}
	lines := validityLines("local", "invalid", reasons)
	if got, want := len(lines), 4; got != want {
		t.Fatalf("%d lines, want %d:\n%s", got, want, strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > summaryWidth {
			t.Errorf("line of %d columns (want ≤ %d): %q", n, summaryWidth, l)
		}
	}
	if got := validityLines("local", "suspect", reasons[2:]); len(got) != 1 || !strings.Contains(got[0], "suspect: mean background") {
		t.Errorf("a short verdict = %q, want it on one line", got)
	}
}
