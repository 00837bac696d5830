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
