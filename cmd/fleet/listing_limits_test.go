package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunsSaysWhenCut: a list stopped by --limit says how many there are (on stderr, so JSON stays clean), and
// show takes "previous" as regress --baseline does.
func TestRunsSaysWhenCut(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	for range 3 {
		if _, stderr, code := runFleet(t, "--db", db, "import", "--board", "b1", capturePath(t, "L01")); code != 0 {
			t.Fatalf("import: exit %d: %s", code, stderr)
		}
	}
	stdout, stderr, code := runFleet(t, "--db", db, "runs", "--limit", "2")
	if code != 0 || !strings.Contains(stderr, "the newest 2 of 3 runs; --limit N for more") || strings.Contains(stdout, "newest 2 of") {
		t.Errorf("runs --limit 2: exit %d, stderr %q; want a note of 2 of 3 on stderr", code, stderr)
	}
	if _, stderr, _ := runFleet(t, "--db", db, "runs"); strings.Contains(stderr, "of 3 runs") {
		t.Errorf("runs under the limit: stderr %q, want no note", stderr)
	}
	stdout, stderr, code = runFleet(t, "--db", db, "show", "previous")
	if code != 0 || !strings.Contains(stdout, "Run 2") && !strings.Contains(stdout, "run 2") {
		t.Errorf("show previous: exit %d, stdout %q, stderr %q; want run 2", code, stdout, stderr)
	}
}
