package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// storeBusyNights stores 6 nightly runs of board am64x on a shared machine: modes cpu and soft, aes-128-cbc at 6
// block sizes (12 series), 3 repeats, every point judged invalid for background CPU of 60 to 90 %, and from the
// fourth run 86 % slower.
func storeBusyNights(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for n := range 6 {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Started: time.Date(2026, 2, 1+n, 3, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		level := 1.0
		if n >= 3 {
			level = 0.14
		}
		for _, mode := range []string{protocol.ModeCPU, protocol.ModeSoft} {
			for i, size := range []int{16, 64, 256, 1024, 8192, 16384} {
				for r := range 3 {
					bps := float64(size) * 6e4 * level * (1 + 0.004*float64((n+r+i)%3))
					p := protocol.Point{Mode: mode, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: size, Threads: 1,
						Repeat: r, Count: bps / float64(size), Seconds: 1, Timing: "wall", BytesPerSec: bps, WallS: 1,
						Validity:        protocol.ValidityInvalid,
						ValidityReasons: []string{fmt.Sprintf("background CPU %d %% (limit 8 %%)", 60+6*((n+r)%6))}}
					if err := w.Point(ctx, "am64x", p); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if err := w.BoardFinished(ctx, "am64x", protocol.StatusOK, ""); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
	}
}

// TestChangesAllInvalid: 12 series of 6 runs whose every point is invalid. Before, fleet changes said "12 series
// with fewer than 6 runs not searched", JSON was [] and the history chart had no mark; now the text and the
// JSON notes count them as invalid with the cause and what to do, --fail-on-drop never fails on the step, and
// the history page marks it "not judged: invalid".
func TestChangesAllInvalid(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeBusyNights(t, db)
	note := "am64x: 12 series not searched: all 6 runs invalid: background CPU 60–90 %; a change needs 3 usable runs on each side: " +
		"run on a quiet board, wait for one with fleet run --quiet-wait 60s (quiet_wait in [boards.am64x.validity] in " +
		"boards.toml), or set the limits there (background_peak_pct, background_avg_pct)"

	stdout, stderr, code := runFleet(t, "changes", "--db", db)
	if code != 0 {
		t.Fatalf("changes: exit %d: %s", code, stderr)
	}
	for _, want := range []string{note, "no change in the 0 series searched of 12",
		"not judged: am64x cpu aes-128-cbc 16 B −86.0%"} {
		if !strings.Contains(unfold(stdout), unfold(want)) {
			t.Errorf("text lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "fewer than 6 runs") {
		t.Errorf("series of 6 runs said to have fewer:\n%s", stdout)
	}

	stdout, stderr, code = runFleet(t, "changes", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("changes --format json: exit %d: %s", code, stderr)
	}
	var j report.ChangesJSON
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatalf("JSON: %v\n%s", err, stdout)
	}
	if len(j.Changes) != 0 || len(j.NotJudged) != 12 || j.Series != 12 || j.Searched != 0 {
		t.Errorf("JSON: %d changes, %d not judged, %d of %d series searched; want 0, 12, 0 of 12", len(j.Changes),
			len(j.NotJudged), j.Searched, j.Series)
	}
	if len(j.LeftOut) != 1 || j.LeftOut[0].Reason != report.LeftOutInvalid || j.LeftOut[0].InvalidRuns != 6 ||
		!strings.Contains(strings.Join(j.Notes, "\n"), note) {
		t.Errorf("JSON left out %+v, notes %q; want the invalid series and %q", j.LeftOut, j.Notes, note)
	}

	if _, stderr, code := runFleet(t, "changes", "--db", db, "--fail-on-drop", "50%"); code != exitOK {
		t.Errorf("--fail-on-drop on a step among invalid points: exit %d, want 0: %s", code, stderr)
	}

	rec := httptest.NewRecorder()
	dashboard(t, db).ServeHTTP(rec, httptest.NewRequest("GET", "/history?board=am64x&mode=cpu&algorithm=aes-128-cbc&size=16384", nil))
	page := rec.Body.String()
	if rec.Code != 200 || strings.Count(page, `class="notjudged" stroke`) != 1 || strings.Contains(page, `class="change" stroke`) ||
		!strings.Contains(page, "#1 not judged: invalid −86.0%") {
		t.Errorf("history: status %d, want one not-judged mark and no change mark:\n%s", rec.Code, page)
	}
}

// TestGoldenChangesAllInvalid compares fleet changes over storeBusyNights with testdata/changes-all-invalid*.golden.
func TestGoldenChangesAllInvalid(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeBusyNights(t, db)
	goldenFleet(t, "changes-all-invalid", db, "changes", "--modes", "cpu")
	goldenFleet(t, "changes-all-invalid-json", db, "changes", "--modes", "cpu", "--sizes", "16,16384", "--format", "json")
}
