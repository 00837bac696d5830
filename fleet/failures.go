package fleet

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// pointFailure is a point the board measured and marked failed (an engine that fell back to software, a cpu
// point an engine took, 0.00 s), with the reason it carries: what `fleet results` shows per point, and what the
// run's summary and the board's stored error say in one line.
type pointFailure struct {
	what   string // "cpu aes-128-cbc"
	reason string
}

// failedClauseWidth caps the clause: it is one line of the run's summary and of the board's error in show.
const failedClauseWidth = 240

// failedClause says what failed and why, grouped by reason in the order first seen, each point's mode and
// algorithm named once whatever its sizes and repeats: "3 points failed: cpu aes-128-cbc: the kernel did most
// of the work …; cpu sha256: 0.00 s". Past failedClauseWidth it is cut with "…" (`fleet results` has every
// point's reason). "" for no failure.
func failedClause(fs []pointFailure) string {
	if len(fs) == 0 {
		return ""
	}
	var order []string
	byReason := map[string][]string{}
	for _, f := range fs {
		reason := f.reason
		if reason == "" {
			reason = "no reason given"
		}
		whats, seen := byReason[reason]
		if !seen {
			order = append(order, reason)
		}
		if !strings.Contains(","+strings.Join(whats, ",")+",", ","+f.what+",") {
			byReason[reason] = append(whats, f.what)
		}
	}
	parts := make([]string, len(order))
	for i, reason := range order {
		parts[i] = strings.Join(byReason[reason], ", ") + ": " + reason
	}
	head := "1 point failed: "
	if len(fs) > 1 {
		head = fmt.Sprintf("%d points failed: ", len(fs))
	}
	return capRunes(head+strings.Join(parts, "; "), failedClauseWidth)
}

// capRunes cuts s to at most n runes, the last of them "…" when it was cut.
func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ;,:") + "…"
}
