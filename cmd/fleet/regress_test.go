package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// storeSweep stores one run of board am64x: aes-128-cbc at 16 and 16384 bytes in modes cpu and devcrypto,
// five repeats each, at the given throughputs (B/s) scaled by a small repeat-dependent wobble.
func storeSweep(t *testing.T, path, label string, bps map[string]float64) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, store.RunInfo{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	facts := protocol.Facts{Machine: "aarch64", Kernel: "6.1.0", OpenSSLVersion: "3.0.13"}
	if err := w.BoardStarted(ctx, "am64x"); err != nil {
		t.Fatal(err)
	}
	if err := w.BoardFacts(ctx, "am64x", facts); err != nil {
		t.Fatal(err)
	}
	for r := range 5 {
		for _, mode := range []string{"cpu", "devcrypto"} {
			for _, size := range []int{16, 16384} {
				v := bps[mode+"/"+strconv.Itoa(size)] * (1 + 0.004*float64(r-2))
				p := protocol.Point{Mode: mode, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: size, Threads: 1, Repeat: r,
					Count: v / float64(size), Seconds: 1, Timing: "wall", BytesPerSec: v, WallS: 1, UserS: 0.9, SysS: 0.05, CPUPct: 95}
				if err := w.Point(ctx, "am64x", p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := w.BoardFinished(ctx, "am64x", "ok", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
}

// TestRegressCommand is regress at the CLI: a 25 % drop in one series exits 1 and is named in the text and the
// JUnit file; an unchanged rerun exits 0.
func TestRegressCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	base := map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6, "devcrypto/16": 20e6, "devcrypto/16384": 400e6}
	storeSweep(t, db, "nightly", base)

	same := map[string]float64{}
	for k, v := range base {
		same[k] = v
	}
	storeSweep(t, db, "", same)
	stdout, stderr, code := runFleet(t, "regress", "--baseline", "nightly", "--db", db)
	if code != 0 {
		t.Fatalf("unchanged rerun: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	drop := map[string]float64{}
	for k, v := range base {
		drop[k] = v
	}
	drop["devcrypto/16384"] *= 0.75
	storeSweep(t, db, "", drop)
	junit := filepath.Join(dir, "regress.xml")
	stdout, stderr, code = runFleet(t, "regress", "--baseline", "nightly", "--junit", junit, "--db", db)
	if got, want := code, exitRegression; got != want {
		t.Fatalf("25%% drop: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, want, stdout, stderr)
	}
	if !strings.Contains(stdout, "regressed") || !strings.Contains(stdout, "16384") || !strings.Contains(stdout, "devcrypto") {
		t.Errorf("text does not name the regressed series:\n%s", stdout)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(x), "<failure"); got != 1 {
		t.Errorf("JUnit has %d failures, want 1:\n%s", got, x)
	}
	if !strings.Contains(string(x), "devcrypto/aes-128-cbc/16384") {
		t.Errorf("JUnit does not name devcrypto/aes-128-cbc/16384:\n%s", x)
	}
}

// TestImportS00Compare: the AM335x capture (OpenSSL 1.0.0d, software vs cryptodev, timed on CPU time) compares on
// wall time: the accelerator at 8192 B is 0.81× the CPU path, not 240× faster, and it never crosses over.
func TestImportS00Compare(t *testing.T) {
	capture := captureFile(t, "S00_am335x-1.0.0d-sw-and-cryptodev-time-v.txt")
	db := filepath.Join(t.TempDir(), "fleet.db")
	if _, stderr, code := runFleet(t, "import", "--board", "am335x", "--db", db, capture); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runFleet(t, "compare", "--db", db)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	var speedup8192 string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "8192 B") && strings.Contains(line, "×") {
			speedup8192 = line
		}
	}
	if !strings.Contains(speedup8192, "0.81×") {
		t.Errorf("speedup row at 8192 B = %q, want 0.81×\n%s", speedup8192, stdout)
	}
	if !strings.Contains(stdout, "never") {
		t.Errorf("no crossover \"never\" in:\n%s", stdout)
	}
	if !strings.Contains(stdout, "timed on CPU seconds") {
		t.Errorf("the CPU-timed footnote is missing:\n%s", stdout)
	}
}

// TestReportCommand: one self-contained HTML file with a chart per algorithm and, once a series has more than
// one run, its history.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	v := map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6, "devcrypto/16": 20e6, "devcrypto/16384": 400e6}
	storeSweep(t, db, "nightly", v)
	storeSweep(t, db, "", v)
	out := filepath.Join(dir, "report.html")
	if _, stderr, code := runFleet(t, "report", "--db", db, "-o", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<svg class="chart"`, "<h2>History</h2>", "am64x devcrypto aes-128-cbc 16384 B"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// (the SVG namespace URI names, it is never fetched)
	for _, banned := range []string{"<script src", "<link", `src="http`, `href="http`, "url(http", "@import"} {
		if strings.Contains(string(html), banned) {
			t.Errorf("report is not self-contained: has %q", banned)
		}
	}
}
