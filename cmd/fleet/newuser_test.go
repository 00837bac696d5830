package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// importCapture imports one capture of opensslspeed/testdata/captures as board and returns the database.
func importCapture(t *testing.T, board, capture string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "fleet.db")
	if _, stderr, code := runFleet(t, "import", "--board", board, "--db", db, captureFile(t, capture)); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	return db
}

// TestCompareWrappedTitle: a board name long enough to wrap its table's title prints the title on two lines,
// not with a literal "\n" in it.
func TestCompareWrappedTitle(t *testing.T) {
	db := importCapture(t, "am335x-beaglebone-black-industrial-rev-c", "S00_am335x-1.0.0d-sw-and-cryptodev-time-v.txt")
	stdout, stderr, code := runFleet(t, "compare", "--db", db)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, `\n`) {
		t.Errorf("compare prints a literal \\n:\n%s", stdout)
	}
	if !strings.HasPrefix(stdout, "am335x-beaglebone-black-industrial-rev-c aes-256-cbc (") {
		t.Errorf("compare does not start with the table's title:\n%s", stdout)
	}
}

// TestCompareHTMLUnknownCPU: a capture imported without CPU times (L01: -elapsed, no time -v) gives a CPU chart
// that says "unknown", not a 0 % bar.
func TestCompareHTMLUnknownCPU(t *testing.T) {
	db := importCapture(t, "local", "L01_local-3.0-evp-aes128cbc-elapsed.txt")
	stdout, stderr, code := runFleet(t, "compare", "--db", db, "--format", "html")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	_, bars, ok := strings.Cut(stdout, `<svg class="bars"`)
	if !ok {
		t.Fatalf("no CPU bar chart:\n%s", stdout)
	}
	bars, _, _ = strings.Cut(bars, "</svg>")
	if strings.Contains(bars, `class="value">0%`) || !strings.Contains(bars, ">unknown</text>") {
		t.Errorf("the CPU chart of a capture without CPU times does not say unknown:\n%s", bars)
	}
}
