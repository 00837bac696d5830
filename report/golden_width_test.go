package report

import (
	"testing"

	"github.com/fleetlab/fleet/internal/golden"
)

// TestGoldenWidth holds every text rendering among report's goldens to 100 columns. Machine formats may be
// wider, each for its reason below, and so may the layouts a user asks for by name to be wide (--wide: the full
// table, one row per algorithm and size, for a wide window or a file).
func TestGoldenWidth(t *testing.T) {
	allow := golden.Allow{
		"*.json.golden":     "JSON: strings kept whole for programs",
		"*.csv.golden":      "CSV: one record a line, as many columns as it has",
		"*.junit.golden":    "JUnit XML for CI: attribute values are the messages, whole",
		"*.html.golden":     "HTML: laid out by the browser",
		"*.md.golden":       "Markdown source: a table row is one line, or it is no longer a table",
		"*.markdown.golden": "Markdown source, as *.md",
		"*_wide.*.golden":   "--wide: the unfitted table, asked for by name",
	}
	if n := golden.CheckWidths(t, "testdata", allow); n < 15 {
		t.Errorf("read %d text goldens, want report's (at least 15): has testdata moved?", n)
	}
}
