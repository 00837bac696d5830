package store

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLabelLen is the longest label, in bytes: a label is a short name for people (nightly, v2.1-rc1).
const MaxLabelLen = 128

// runIDRE matches what ResolveRun would read as a run id rather than a label (also beyond int64, so that
// 99999999999999999999 cannot pass for a label either).
var runIDRE = regexp.MustCompile(`^[+-]?[0-9]+$`)

// runReferences are the words that name runs by position: ResolveRun's "latest", and regress --baseline's
// "previous". A label spelled like one could never be selected by that label.
var runReferences = []string{"latest", "previous"}

// CheckLabel reports whether label can name runs: one line of printable text, at most MaxLabelLen bytes, and
// not spelled like a run reference (latest, previous, a run id or UUID), which ResolveRun and regress --baseline would
// read before any label. The empty label means no label and is accepted.
func CheckLabel(label string) error {
	if label == "" {
		return nil
	}
	if !utf8.ValidString(label) {
		return fmt.Errorf("label %q is not valid UTF-8", label)
	}
	if len(label) > MaxLabelLen {
		return fmt.Errorf("label of %d bytes is too long (at most %d)", len(label), MaxLabelLen)
	}
	for _, r := range label {
		// A control character (newline, ESC, NUL) would break tables and terminals wherever the label is shown.
		if !unicode.IsPrint(r) {
			return fmt.Errorf("label %q contains the control character %U (want one line of printable text, such as nightly)", label, r)
		}
	}
	for _, ref := range runReferences {
		if label == ref {
			return fmt.Errorf("label %q is spelled like the run reference %q, so no command could select runs by it; choose another, such as nightly", label, ref)
		}
	}
	if IsRunUUID(label) {
		return fmt.Errorf("label %q reads as a run's UUID, so no command could select runs by it; choose another, such as nightly", label)
	}
	if runIDRE.MatchString(label) {
		return fmt.Errorf("label %q reads as a run id, so no command could select runs by it; add a letter, such as build-%s", label, strings.TrimLeft(label, "+-"))
	}
	return nil
}
