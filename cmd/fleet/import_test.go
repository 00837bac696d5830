package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/store"
)

// capturePath is a real capture of the parser's testdata (inside the repository).
func capturePath(t *testing.T, prefix string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("..", "..", "opensslspeed", "testdata", "captures", prefix+"_*.txt"))
	if err != nil || len(m) != 1 {
		t.Fatalf("capture %s: %v, %v", prefix, m, err)
	}
	return m[0]
}

// writeCapture writes text to a file in dir.
func writeCapture(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// storedRuns lists the runs in the database at path (none when the file does not exist).
func storedRuns(t *testing.T, path string) []store.Run {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestImportRefusesCaptureWithoutMeasurement: a capture with no measurement (a refused command, a table of
// NaN and 1e308k) stores nothing and exits 2 — alone or among good files.
func TestImportRefusesCaptureWithoutMeasurement(t *testing.T) {
	dir := t.TempDir()
	nan := writeCapture(t, dir, "nan.txt", "The 'numbers' are in 1000s of bytes per second processed.\n"+
		"type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n"+
		"aes-128-cbc           nan          nan          nan          nan          nan          nan\n"+
		"sha256            1e308k       1e308k       1e308k       1e308k       1e308k       1e308k\n")
	for _, tt := range []struct {
		name  string
		files []string
	}{
		{"L07 unknown algorithm", []string{capturePath(t, "L07")}},
		{"L17 bad option", []string{capturePath(t, "L17")}},
		{"L18 unknown cipher", []string{capturePath(t, "L18")}},
		{"NaN and 1e308k", []string{nan}},
		{"a good file and a bad one", []string{capturePath(t, "L01"), capturePath(t, "L07")}},
		{"a bad file and a good one", []string{capturePath(t, "L07"), capturePath(t, "L01")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "fleet.db")
			_, stderr, code := runFleet(t, append([]string{"--db", db, "import", "--board", "am335x"}, tt.files...)...)
			if code != exitUsage || !strings.Contains(stderr, "no openssl speed measurement in ") {
				t.Errorf("exit %d, stderr %q; want 2 and \"no openssl speed measurement in FILE\"", code, stderr)
			}
			if runs := storedRuns(t, db); len(runs) != 0 {
				t.Errorf("stored %d runs, want none: %+v", len(runs), runs)
			}
		})
	}
}

// TestImportRefusesControlCharacters: a NUL or an escape sequence in an algorithm name, or a label with a
// newline, is refused with exit 2, and the message shows the bytes escaped.
func TestImportRefusesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	nul := writeCapture(t, dir, "nul.txt", "$ openssl speed -elapsed -evp aes-128-cbc\n"+
		"Doing aes\x00-128-cbc for 3s on 16 size blocks: 5000 aes\x00-128-cbc's in 3.00s\n")
	esc := writeCapture(t, dir, "esc.txt", "+DT:aes-128-cbc\x1b[2J:3:16\n+R:5000:aes-128-cbc\x1b[2J:3.000000\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"NUL in a name", []string{nul}, `nul.txt:2: algorithm name "aes\x00-128-cbc" has control characters`},
		{"escape in a name", []string{esc}, `esc.txt:1: algorithm name "aes-128-cbc\x1b[2j" has control characters`},
		{"newline in a label", []string{"--label", "x\nlatest", capturePath(t, "L01")}, `contains the control character U+000A`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "fleet.db")
			_, stderr, code := runFleet(t, append([]string{"--db", db, "import", "--board", "b"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			if strings.ContainsAny(stderr, "\x00\x1b") {
				t.Errorf("stderr carries a raw control byte: %q", stderr)
			}
			if runs := storedRuns(t, db); len(runs) != 0 {
				t.Errorf("stored %d runs, want none", len(runs))
			}
		})
	}
}

// TestImportRefusesAbsurdNumbers: a count of 1e29, a negative count, 1e400 and "in -1.00s" are refused with
// exit 2, naming the file, the line and the accepted range; nothing is stored.
func TestImportRefusesAbsurdNumbers(t *testing.T) {
	dir := t.TempDir()
	const doing = "$ openssl speed -elapsed -evp aes-128-cbc\nDoing aes-128-cbc for 3s on 16 size blocks: "
	for _, tt := range []struct{ name, text, want string }{
		{"count 1e29", doing + "100000000000000000000000000000 aes-128-cbc's in 3.00s\n", "x.txt:2: count 1e+29 is out of range: refused (accepted 0 to 1e+15)"},
		{"negative count", doing + "-5 aes-128-cbc's in 3.00s\n", "x.txt:2: count -5 is negative"},
		{"1e400", "+DT:aes-128-cbc:3:16\n+R:1e400:aes-128-cbc:3.000000\n", "x.txt:2: count 1e400 is not a finite number"},
		{"negative seconds", doing + "5000 aes-128-cbc's in -1.00s\n", "x.txt:2: seconds -1 is negative"},
		{"block size 1e14", "type 100000000000000 bytes\naes-128-cbc 1.00k\n", "x.txt:1: table header: block size 100000000000000 B is out of range"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "fleet.db")
			f := writeCapture(t, dir, "x.txt", tt.text)
			_, stderr, code := runFleet(t, "--db", db, "import", "--board", "b", f)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			if runs := storedRuns(t, db); len(runs) != 0 {
				t.Errorf("stored %d runs, want none", len(runs))
			}
		})
	}
}

// TestImportMulti111EVPRow: OpenSSL 1.1.1 -multi labels its total "evp". Without the command line in the capture,
// import says to pass --algorithm; with it, the points are stored under that algorithm with threads = N.
func TestImportMulti111EVPRow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "opensslspeed", "testdata", "constructed", "1.1.1n-multi2-evp-aes128cbc.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, noPrompt, _ := strings.Cut(string(b), "\n")
	f := writeCapture(t, t.TempDir(), "multi.txt", noPrompt)
	db := filepath.Join(t.TempDir(), "fleet.db")
	_, stderr, code := runFleet(t, "--db", db, "import", "--board", "imx8", f)
	if code != exitUsage || !strings.Contains(stderr, "multi.txt:37: row \"evp\"") || !strings.Contains(stderr, "pass --algorithm ALG") {
		t.Fatalf("without --algorithm: exit %d, stderr %q; want 2, the line and the flag to pass", code, stderr)
	}
	if _, stderr, code := runFleet(t, "--db", db, "import", "--board", "imx8", "--algorithm", "aes-128-cbc", f); code != 0 {
		t.Fatalf("with --algorithm: exit %d: %s", code, stderr)
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	ms, err := sdb.Measurements(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 6 {
		t.Fatalf("%d points stored, want 6", len(ms))
	}
	for _, m := range ms {
		if m.Algorithm != "aes-128-cbc" || m.Threads != 2 || m.Failed {
			t.Errorf("stored %s %d B threads %d failed %v; want aes-128-cbc, 2 threads", m.Algorithm, m.BlockSize, m.Threads, m.Failed)
		}
	}
}
