package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImportHeaderlessRows: rows cut from their table header by tail are refused naming the line and what is
// missing; with --sizes they are stored. A bad --sizes is a usage error that names the value.
func TestImportHeaderlessRows(t *testing.T) {
	b, err := os.ReadFile(capturePath(t, "L25"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "AES-256-GCM") {
			rows = append(rows, l)
		}
	}
	dir := t.TempDir()
	f := writeCapture(t, dir, "tail.txt", "\n"+strings.Join(rows, "\n")+"\n")
	db := filepath.Join(dir, "fleet.db")
	_, stderr, code := runFleet(t, "--db", db, "import", "--board", "b1", f)
	if code != exitUsage || !strings.Contains(stderr, "line 2: a table row without the") || !strings.Contains(stderr, "--sizes") {
		t.Fatalf("without --sizes: exit %d, stderr %q; want 2 naming line 2, the header and --sizes", code, stderr)
	}
	if runs := storedRuns(t, db); len(runs) != 0 {
		t.Fatalf("%d runs stored after a refusal, want 0", len(runs))
	}
	for _, bad := range []string{"", "16,abc", "0", "16,16", "2000000000"} {
		if _, stderr, code := runFleet(t, "--db", db, "import", "--board", "b1", "--sizes", bad, f); code != exitUsage ||
			!strings.Contains(stderr, "--sizes") {
			t.Errorf("--sizes %q: exit %d, stderr %q; want 2 naming --sizes", bad, code, stderr)
		}
	}
	stdout, stderr, code := runFleet(t, "--db", db, "import", "--board", "b1", "--sizes", "16,64,256,1024,8192,16384", f)
	if code != 0 || !strings.Contains(stdout, "6 points") {
		t.Fatalf("with --sizes: exit %d, stdout %q, stderr %q; want 6 points stored", code, stdout, stderr)
	}
	// the capture with its command line needs no --sizes
	if stdout, stderr, code := runFleet(t, "--db", db, "import", "--board", "b1", capturePath(t, "L25")); code != 0 ||
		!strings.Contains(stdout, "7 points from 2 openssl command(s)") {
		t.Fatalf("L25: exit %d, stdout %q, stderr %q; want 7 points from 2 commands", code, stdout, stderr)
	}
}

// TestImportRefusesNonRegularFiles: a FIFO (which open(2) would wait on forever), a directory and a missing
// file are refused at once, exit 2, with "import:" said once.
func TestImportRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "capture.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	db := filepath.Join(dir, "fleet.db")
	for _, tt := range []struct{ path, want string }{
		{fifo, "capture.fifo: not a regular file (a FIFO)"},
		{dir, "not a regular file (a directory)"},
		{filepath.Join(dir, "nosuch.txt"), "nosuch.txt: no such file or directory"},
	} {
		done := make(chan struct{})
		var stderr string
		var code int
		go func() {
			defer close(done)
			_, stderr, code = runFleet(t, "--db", db, "import", "--board", "b1", tt.path)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("import of %s did not return", tt.path)
		}
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "import:") != 1 {
			t.Errorf("import %s: exit %d, stderr %q; want 2, %q and \"import:\" once", tt.path, code, stderr, tt.want)
		}
	}
}
