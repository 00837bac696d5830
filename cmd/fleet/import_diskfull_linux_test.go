package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestImportDiskFullStoresNothing: a disk that fills during an import leaves no run behind (before, an
// "incomplete" run with all its points, which results and regress took as latest and a retry stored again).
func TestImportDiskFullStoresNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=3m"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	db := filepath.Join(dir, "fleet.db")
	if _, stderr, code := runFleet(t, "--db", db, "import", "--board", "b", "--label", "small", capturePath(t, "L01")); code != 0 {
		t.Fatalf("first import: exit %d: %s", code, stderr)
	}
	_, stderr, code := runFleet(t, "--db", db, "import", "--board", "b", bigCapture(t, 4<<20))
	if code != exitUsage || !strings.Contains(stderr, "full") || !strings.Contains(stderr, "nothing stored") {
		t.Errorf("import onto a full disk: exit %d, stderr %q; want 2, disk full, nothing stored", code, stderr)
	}
	runs := storedRuns(t, db)
	if len(runs) != 1 || runs[0].Label != "small" {
		t.Errorf("runs after the failed import: %+v, want only the first one", runs)
	}
}
