package store

import (
	"context"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestCheckLabelRefusesRunReferencesAndControlCharacters: a label must be selectable as itself (never read as a
// reference to a run) and one line of printable text (no control characters); ordinary labels, including ones
// that merely contain a reference, pass.
func TestCheckLabelRefusesRunReferencesAndControlCharacters(t *testing.T) {
	for _, tc := range []struct {
		label string
		want  string // "" accepted, else a part of the error
	}{
		{"", ""},
		{"nightly", ""},
		{"v2.1-rc1", ""},
		{"latest-2", ""},
		{"7a", ""},
		{"kernel 6.1 (ti)", ""},
		{"Latest", ""}, // ResolveRun matches "latest" exactly: this one is selectable
		{"größe", ""},
		{"latest", "run reference"},
		{"previous", "run reference"},
		{"7", "run id"},
		{"007", "run id"},
		{"+7", "run id"},
		{"-3", "run id"},
		{"99999999999999999999", "run id"},
		{"x\nnightly", "control character"},
		{"\x1b[31mred", "control character"},
		{"a\x00b", "control character"},
		{"tab\there", "control character"},
		{"del\x7f", "control character"},
		{"c1\u0085", "control character"},
		{"bidi\u202e", "control character"},
		{"bad\xffutf8", "UTF-8"},
		{strings.Repeat("n", MaxLabelLen), ""},
		{strings.Repeat("n", MaxLabelLen+1), "too long"},
	} {
		err := CheckLabel(tc.label)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckLabel(%q) = %v, want nil", tc.label, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckLabel(%q) = %v, want an error about %s", tc.label, err, tc.want)
		}
	}
}

// TestBeginRunChecksLabel: the store refuses a label no run can have, whoever calls it (not only the CLI).
func TestBeginRunChecksLabel(t *testing.T) {
	db := openTest(t)
	for _, label := range []string{"latest", "12", "two\nlines"} {
		if w, err := db.BeginRun(context.Background(), RunInfo{Label: label}); err == nil {
			w.Finish(context.Background(), protocol.StatusOK)
			t.Errorf("BeginRun(label %q) = nil error, want a refusal", label)
		}
		if tx, err := db.BeginImport(context.Background(), RunInfo{Label: label}); err == nil {
			tx.Rollback()
			t.Errorf("BeginImport(label %q) = nil error, want a refusal", label)
		}
	}
}
