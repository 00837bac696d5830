package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/report"
)

// TestNightlyStepEndToEnd is a week of one-repeat nightlies on the local board, AES-NI masked from night 4 on
// through the board's env in boards.toml (aes-128-cbc at 16 KiB: 1428 → 296 MB/s on this machine). Each of the
// three nights after the step is judged against nights 1–3 and regressed (exit 1): night 4 by the range rule
// (one sample against three, where the U test cannot reach α), nights 5 and 6 with the new nights left out of
// the window instead of pooled into a mix of both levels. Night 7 is judged against the new level, and its
// verdict says so, with the step.
func TestNightlyStepEndToEnd(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("seven fleet runs on the local board")
	}
	// The verdicts compare nights measured on this machine: beside other tests, a night's AES-NI speed moves
	// by a factor of 2 or more (107–194 MB/s at 7–14 % CPU on a loaded 2-core machine), as much as the step.
	if os.Getenv("FLEET_E2E_ALONE") != "1" {
		t.Skip("compares nights measured on this machine, which must be otherwise idle: test.sh runs it alone with FLEET_E2E_ALONE=1")
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		t.Skip("OPENSSL_ia32cap masks AES-NI on x86 only")
	}
	if cpuinfo, err := os.ReadFile("/proc/cpuinfo"); err != nil || !regexp.MustCompile(`(?m)^flags\s*:.*\baes\b`).Match(cpuinfo) {
		t.Skip("this CPU has no AES-NI to switch off")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	on := nightlyInventory(t, dir, "on.toml", false, nil)
	off := nightlyInventory(t, dir, "off.toml", false, map[string]string{"OPENSSL_ia32cap": aesNIOff})
	var nights []int64
	for n := 1; n <= 7; n++ {
		inv := on
		if n >= 4 {
			inv = off
		}
		stdout, stderr, code := runFleet(t, "--inventory", inv, "run", "--boards", "local", "--db", db, "--label", "nightly",
			"--modes", "cpu", "--algorithms", "aes-128-cbc", "--sizes", "16384", "--repeat", "1", "--seconds", "1")
		if code != 0 {
			t.Fatalf("night %d: fleet run exit %d\nstdout:\n%s\nstderr:\n%s", n, code, stdout, stderr)
		}
		nights = append(nights, latestRunID(t, db))
	}
	out, _, _ := runFleet(t, "history", "--db", db, "--board", "local", "--algorithm", "aes-128-cbc", "--size", "16384")
	t.Logf("fleet history:\n%s", out)

	// The threshold is the machine's: whole nights of a shared machine differ by ±25 %; the step is −79 %.
	regress := func(night int) (report.RegressRow, int) {
		t.Helper()
		run := nights[night-1]
		args := []string{"regress", "--db", db, "--baseline", "nightly", "--run", fmt.Sprint(run), "--threshold", "40%"}
		text, stderr, code := runFleet(t, args...)
		t.Logf("fleet %s: exit %d\n%s%s", strings.Join(args, " "), code, text, stderr)
		stdout, _, _ := runFleet(t, append(args, "--format", "json")...)
		var r report.Regression
		if err := json.Unmarshal([]byte(stdout), &r); err != nil || len(r.Rows) != 1 || r.Rows[0].Baseline == nil {
			t.Fatalf("night %d: regress JSON (%v), want one row with its baseline:\n%s", night, err, stdout)
		}
		return r.Rows[0], code
	}
	for night := 4; night <= 6; night++ {
		x, code := regress(night)
		if code != exitRegression || x.Verdict != report.VerdictRegressed {
			t.Errorf("night %d, %d after the step: exit %d, %q (%s), want exit %d, regressed", night, night-3, code, x.Verdict, x.Delta, exitRegression)
		}
		if b := x.Baseline; !slices.Equal(b.Runs, nights[:3]) || !slices.Equal(b.LeftOut, nights[3:night-1]) {
			t.Errorf("night %d: baseline %s (left out %v), want nights 1–3 (runs %v), with %v left out", night, b, b.LeftOut, nights[:3], nights[3:night-1])
		}
	}
	x, _ := regress(7)
	if b := x.Baseline; b.Since != nights[3] || !slices.Equal(b.Runs, nights[3:6]) || b.Step > -0.5 {
		t.Errorf("night 7: baseline %s, want the new level since night 4 (run %d), nights 4–6, a step below −50 %%", b, nights[3])
	}
	want := fmt.Sprintf("against the new level since run %d (−", nights[3])
	if !strings.Contains(strings.Join(x.Notes, "\n"), want) {
		t.Errorf("night 7: notes %q do not say %q…", x.Notes, want)
	}
}
