package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// storeBoardRun stores one finished run of board, started at started, with five repeats of cpu aes-128-cbc
// at 16384 bytes around bps.
func storeBoardRun(t *testing.T, path, board, label string, started time.Time, bps float64) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, store.RunInfo{Label: label, Started: started})
	if err != nil {
		t.Fatal(err)
	}
	for r := range 5 {
		v := bps * (1 + 0.004*float64(r-2))
		p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1, Repeat: r,
			Count: v / 16384, Seconds: 1, Timing: "wall", BytesPerSec: v, WallS: 1, UserS: 0.9, SysS: 0.05, CPUPct: 95}
		if err := w.Point(ctx, board, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.BoardFinished(ctx, board, "ok", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
}

// TestRegressJudgesBoardsWithBaseline: `regress --baseline nightly` on a database that also holds a board never
// run as nightly — measured once before the first nightly (a board added last week, an old import) or after it —
// judges every board that has a baseline, lists the others as "no baseline" in text, JSON and JUnit (a skipped
// test case), and exits on what was judged; with no baseline at all it still exits 2.
func TestRegressJudgesBoardsWithBaseline(t *testing.T) {
	now := time.Now().UTC()
	for _, tc := range []struct {
		name    string
		other   time.Time // when the board without a nightly run was measured
		drop    float64   // factor on am64x's current run
		want    int
		verdict string
	}{
		{"older board, unchanged", now.Add(-7 * 24 * time.Hour), 1, exitOK, "unchanged"},
		{"older board, regression", now.Add(-7 * 24 * time.Hour), 0.7, exitRegression, "regressed"},
		{"newer board, unchanged", now.Add(time.Hour), 1, exitOK, "unchanged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "fleet.db")
			storeBoardRun(t, db, "am335x", "", tc.other, 20e6)
			storeBoardRun(t, db, "am64x", "nightly", now.Add(-2*time.Minute), 900e6)
			storeBoardRun(t, db, "am64x", "", now.Add(-time.Minute), 900e6*tc.drop)

			junit := filepath.Join(dir, "regress.xml")
			stdout, stderr, code := runFleet(t, "regress", "--baseline", "nightly", "--db", db, "--junit", junit)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, stdout, stderr)
			}
			if !strings.Contains(stdout, "no baseline for am335x") || !strings.Contains(stdout, tc.verdict) {
				t.Errorf("text does not judge am64x (%s) and list am335x as without baseline:\n%s", tc.verdict, stdout)
			}
			if strings.Contains(stdout, "new") {
				t.Errorf("am335x's points were judged as new:\n%s", stdout)
			}
			x, err := os.ReadFile(junit)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(x), `<testsuite name="am335x" tests="1" failures="0" skipped="1">`) ||
				!strings.Contains(string(x), `<skipped message="no run labelled`) {
				t.Errorf("JUnit lacks a skipped case for am335x:\n%s", x)
			}

			stdout, stderr, _ = runFleet(t, "regress", "--baseline", "nightly", "--db", db, "--format", "json")
			var r struct {
				Rows       []struct{ Board, Verdict string }
				NoBaseline []struct{ Board, Reason string } `json:"no_baseline"`
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("JSON: %v\n%s%s", err, stdout, stderr)
			}
			if len(r.NoBaseline) != 1 || r.NoBaseline[0].Board != "am335x" || !strings.Contains(r.NoBaseline[0].Reason, "nightly") {
				t.Errorf("no_baseline = %+v, want am335x with the reason", r.NoBaseline)
			}
			if len(r.Rows) != 1 || r.Rows[0].Board != "am64x" || r.Rows[0].Verdict != tc.verdict {
				t.Errorf("rows = %+v, want am64x %s only", r.Rows, tc.verdict)
			}
		})
	}
}

// TestRegressWithoutAnyBaselineExits2: when no board of the run has a baseline, nothing can be judged: exit 2,
// naming each board and why.
func TestRegressWithoutAnyBaselineExits2(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	now := time.Now().UTC()
	storeBoardRun(t, db, "am335x", "", now.Add(-time.Hour), 20e6)
	storeBoardRun(t, db, "am64x", "", now.Add(-time.Minute), 900e6)
	for _, ref := range []string{"nightly", "999"} {
		_, stderr, code := runFleet(t, "regress", "--baseline", ref, "--db", db)
		if got, want := code, exitUsage; got != want {
			t.Errorf("--baseline %s: exit %d, want %d; stderr:\n%s", ref, got, want, stderr)
		}
		if !strings.Contains(stderr, "--baseline") {
			t.Errorf("--baseline %s: stderr does not name the flag:\n%s", ref, stderr)
		}
	}
	_, stderr, _ := runFleet(t, "regress", "--baseline", "nightly", "--db", db)
	for _, want := range []string{"am335x: no run labelled", "am64x: no run labelled"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestRegressBaselineRuns: --baseline-runs K pools the label's last K runs and says so; K below 1 is a usage
// error, refused before the database is read.
func TestRegressBaselineRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	start := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	for n := range 6 {
		storeBoardRun(t, db, "am64x", "nightly", start.AddDate(0, 0, n), 400e6)
	}
	for _, k := range []string{"0", "-3", "1001"} {
		if _, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "nightly", "--baseline-runs", k); code != exitUsage ||
			!strings.Contains(stderr, "--baseline-runs") {
			t.Errorf("--baseline-runs %s: exit %d, want %d naming the flag\n%s", k, code, exitUsage, stderr)
		}
	}
	stdout, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "nightly", "--baseline-runs", "3")
	if code != 0 || !strings.Contains(stdout, "baseline of am64x: nightly runs 3–5, 3 runs, 15 samples") {
		t.Errorf("--baseline-runs 3: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, _, _ := runFleet(t, "regress", "--db", db, "--baseline", "nightly"); !strings.Contains(stdout, "nightly runs 1–5, 5 runs, 25 samples") {
		t.Errorf("default window over 5 earlier runs:\n%s", stdout)
	}
	if stdout, _, _ := runFleet(t, "regress", "--db", db, "--baseline", "previous"); !strings.Contains(stdout, "baseline of am64x: run 5, 5 samples") {
		t.Errorf("--baseline previous is one run:\n%s", stdout)
	}
}

// TestRegressRefusesTheJudgedRunAsBaseline: `--baseline 1 --run 1` would compare every point with itself and
// pass; it is a usage error naming the run, whether the run is named by id or is the latest.
func TestRegressRefusesTheJudgedRunAsBaseline(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	now := time.Now().UTC()
	storeBoardRun(t, db, "am64x", "", now.Add(-2*time.Minute), 900e6)
	storeBoardRun(t, db, "am64x", "", now.Add(-time.Minute), 900e6)
	for _, args := range [][]string{{"--baseline", "1", "--run", "1"}, {"--baseline", "2"}} {
		stdout, stderr, code := runFleet(t, append([]string{"regress", "--db", db}, args...)...)
		if got, want := code, exitUsage; got != want {
			t.Errorf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, got, want, stdout, stderr)
		}
		if !strings.Contains(stderr, "is the run judged") {
			t.Errorf("%v: stderr does not say the baseline is the judged run:\n%s", args, stderr)
		}
	}
	if _, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "1", "--run", "2"); code != exitOK {
		t.Errorf("--baseline 1 --run 2: exit %d, want %d\n%s", code, exitOK, stderr)
	}
}
