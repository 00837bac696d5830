package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDBCopyFailureRemovesTheDatabaseItCreated: a copy into a new SQLite file on a full disk fails (exit 2,
// the cause named) and leaves no file behind, neither the empty database nor its -wal/-shm.
func TestDBCopyFailureRemovesTheDatabaseItCreated(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.db")
	storeBoardRun(t, src, "am64x", "", time.Now().UTC().Add(-time.Minute), 900e6)
	dst := fullDisk(t, "copy.db", nil)
	if err := os.Remove(dst); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runFleet(t, "db", "copy", "--from", src, "--to", dst)
	if got, want := code, exitUsage; got != want {
		t.Errorf("exit %d, want %d\n%s", got, want, stderr)
	}
	if !strings.Contains(stderr, "full") {
		t.Errorf("stderr does not name the full disk:\n%s", stderr)
	}
	left, err := filepath.Glob(dst + "*")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("the failed copy left %v", left)
	}
}
