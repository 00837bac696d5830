package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/textfit"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestRunSummaryReasonsInWords: fleet show prints a mode's OpenSSL error in words; show --raw (raws not nil) adds
// the reason as it was stored, which the JSON keeps as it is.
func TestRunSummaryReasonsInWords(t *testing.T) {
	raw := "engine afalg: not available: init failed: error:4000006D:lib(128)::reason(109):../engines/e_afalg.c:859:"
	br := store.BoardRun{Board: "local", Status: protocol.StatusOK, Points: 24,
		Facts: &protocol.Facts{Machine: "x86_64", Modes: []protocol.ModeFact{{Mode: "cpu", Available: true}, {Mode: "afalg", Reason: raw}}},
		Skips: []protocol.Skip{{Mode: "afalg", Reason: raw}}}
	run := store.Run{ID: 1, Status: protocol.StatusOK, Points: 24, Started: time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		name string
		raws []store.RawOutput
		raw  bool
	}{{"show", nil, false}, {"show --raw", []store.RawOutput{}, true}} {
		var b bytes.Buffer
		if err := WriteRunSummary(&b, run, []store.BoardRun{br}, tc.raws); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		flat := strings.Join(strings.Fields(out), " ") // a long fact folds; the words are what this test reads
		if !strings.Contains(flat, "afalg: not available, the afalg engine did not load: the kernel has no AF_ALG sockets") ||
			!strings.Contains(flat, "afalg (all): the afalg engine did not load: the kernel has no AF_ALG sockets") {
			t.Errorf("%s: the afalg reason is not in words:\n%s", tc.name, out)
		}
		if got := strings.Count(out, raw); tc.raw && got != 1 || !tc.raw && got != 0 {
			t.Errorf("%s: the stored reason appears %d times:\n%s", tc.name, got, out)
		}
	}
	var j bytes.Buffer
	if err := WriteRunDetail(&j, run, []store.BoardRun{br}, nil, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"engine afalg: not available: init failed: error:4000006D:lib(128)::reason(109):../engines/e_afalg.c:859:"`) {
		t.Errorf("the JSON does not keep the reason as stored:\n%s", j.String())
	}
}

// TestFoldedFactsKeepTheirColumn: a fact whose value folds (the engines' reasons, a long command line) starts
// its value in the column of every other fact, and its continuation lines start there too.
func TestFoldedFactsKeepTheirColumn(t *testing.T) {
	long := strings.Repeat("not installed (no engines-3/x.so); ", 6)
	var b bytes.Buffer
	ew := &errWriter{w: &b}
	writeFactsText(ew, []fact{{"points", "24"}, {"engines", long}, {"kernel command line", "console=ttyS0"}}, "  ")
	if ew.err != nil {
		t.Fatal(ew.err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	col := strings.Index(lines[0], "24")
	if len(lines) < 4 || col < 0 {
		t.Fatalf("want the engines fact folded over at least two lines:\n%s", b.String())
	}
	for _, l := range lines {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("line %q: its value does not start at column %d like the others:\n%s", l, col, b.String())
		}
		if w := textfit.Width(l); w > TextWidth {
			t.Errorf("line %q is %d columns, want at most %d", l, w, TextWidth)
		}
	}
}
