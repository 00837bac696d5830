package main

import (
	"testing"

	"github.com/fleetlab/fleet/internal/golden"
)

// TestGoldenWidth holds every text output of the CLI's golden transcripts (stdout and stderr) to 100 columns.
// Only machine formats may be wider: their lines are records that a reader parses, and a fold would change the
// data (a JSON string or a CSV record cut in two) rather than its layout.
func TestGoldenWidth(t *testing.T) {
	allow := golden.Allow{
		"*-json.golden": "--format json: one document, strings kept whole for programs",
		"*-csv.golden":  "--format csv: one record a line, as many columns as it has",
		"report.golden": "fleet report --output -: an HTML document, laid out by the browser",
	}
	if n := golden.CheckWidths(t, "testdata", allow); n < 15 {
		t.Errorf("read %d text goldens, want the CLI's (at least 15): has testdata moved?", n)
	}
}
