package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
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
	if !strings.HasPrefix(stdout, "am335x-beaglebone-black-industrial-rev-c: run 1, ") ||
		!strings.Contains(stdout, " UTC\nam335x-beaglebone-black-industrial-rev-c aes-256-cbc (") {
		t.Errorf("compare does not start with the board's run, then the table's title:\n%s", stdout)
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

// TestResultsFitAndDryRunHasNoRun: `fleet results` of a board with a long name fits the 100 columns the README
// promises (it printed 149), and `import --dry-run` shows no "run 0" column for points it does not store.
func TestResultsFitAndDryRunHasNoRun(t *testing.T) {
	db := importCapture(t, "am335x-beaglebone-black-industrial-rev-c", "S00_am335x-1.0.0d-sw-and-cryptodev-time-v.txt")
	if _, stderr, code := runFleet(t, "import", "--board", "local", "--db", db, captureFile(t, "L01_local-3.0-evp-aes128cbc-elapsed.txt")); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runFleet(t, "results", "--db", db)
	if code != 0 {
		t.Fatalf("results: exit %d: %s", code, stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("results: a line is %d columns wide, want ≤ 100: %q", n, l)
		}
	}
	for _, board := range []string{"am335x-beaglebone-black-industrial-rev-c", "local"} {
		if !strings.Contains(stdout, ": "+board+", timed on") {
			t.Errorf("results do not title the table of %s:\n%s", board, stdout)
		}
	}
	stdout, stderr, code = runFleet(t, "import", "--board", "am335x", "--dry-run", captureFile(t, "S00_am335x-1.0.0d-sw-and-cryptodev-time-v.txt"))
	if code != 0 {
		t.Fatalf("import --dry-run: exit %d: %s", code, stderr)
	}
	if strings.HasPrefix(stdout, "run") || strings.Contains(stdout, "\n  0  am335x") {
		t.Errorf("import --dry-run shows a run column:\n%s", stdout)
	}
}

// TestShowUnknownClock: a board that reports its maximum clock but not its current one reads "max 1000 MHz"
// in fleet show, never "0 MHz (max 1000)".
func TestShowUnknownClock(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.BeginRun(ctx, store.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	facts := protocol.Facts{Machine: "armv7l", CPU: protocol.CPUFacts{Model: "Cortex-A8", Cores: 1, MaxMHz: 1000}}
	if err := w.BoardFacts(ctx, "am335x", facts); err != nil {
		t.Fatal(err)
	}
	if err := w.BoardFinished(ctx, "am335x", protocol.StatusOK, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	s.Close()
	stdout, stderr, code := runFleet(t, "show", "latest", "--db", db)
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, " 0 MHz") || !strings.Contains(stdout, "Cortex-A8, 1 cores, max 1000 MHz") {
		t.Errorf("show does not say the clock is unknown below its maximum:\n%s", stdout)
	}
}

// TestRunRefusesUnknownAlgorithm: `run --algorithms aes128cbc` is refused after the probe and before anything
// is measured, exit 2, with the nearest name the board's openssl has; nothing of it is left in the history, on
// SQLite and on PostgreSQL (the run's record drops the refused board and the run, whatever its backend).
func TestRunRefusesUnknownAlgorithm(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent")
	}
	for _, be := range dbBackends {
		t.Run(be.name, func(t *testing.T) { testRunRefusesUnknownAlgorithm(t, be.newDSN(t)) })
	}
}

func testRunRefusesUnknownAlgorithm(t *testing.T, db string) {
	stdout, stderr, code := runFleet(t, "run", "--boards", "local", "--db", db, "--seconds", "1", "--modes", "soft",
		"--algorithms", "aes128cbc,sha256", "--sizes", "16")
	if code != exitUsage {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, stdout, stderr)
	}
	if want := "aes128cbc: not an algorithm of board local's OpenSSL "; !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, "did you mean aes-128-cbc?") {
		t.Errorf("stderr does not say %q… with a did-you-mean:\n%s", want, stderr)
	}
	if strings.Count(stderr, "unknown cipher or digest") > 0 || strings.Contains(stderr, "sweep: ") {
		t.Errorf("the sweep started before the refusal:\n%s", stderr)
	}
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Errorf("the refused run is in the history: %+v", runs)
	}
}
