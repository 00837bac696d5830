package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// storeValidityNights stores one nightly run of board local per background CPU figure: one cpu aes-128-cbc 16 KiB point,
// invalid for its background CPU when bg > 8 (the default limit on 2 cores), valid otherwise. It returns the
// run ids.
func storeValidityNights(t *testing.T, path string, bgs ...float64) []int64 {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ids []int64
	for i, bg := range bgs {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Started: time.Date(2026, 12, 1+i, 3, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.BoardStarted(ctx, "local"))
		p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1, Count: 1000,
			Seconds: 1, Timing: "wall", BytesPerSec: 360e6, WallS: 1, UserS: 1, CPUPct: 100, Validity: protocol.ValidityOK,
			Evidence: &protocol.Evidence{Cores: 2, BackgroundPct: &bg}}
		if bg > 8 {
			p.Validity, p.ValidityReasons = protocol.ValidityInvalid, []string{fmt.Sprintf("background CPU %.0f %% (limit 8 %%)", bg)}
		}
		must(t, w.Point(ctx, "local", p))
		must(t, w.BoardFinished(ctx, "local", protocol.StatusOK, ""))
		must(t, w.Finish(ctx, protocol.StatusOK))
		ids = append(ids, w.RunID())
	}
	return ids
}

// TestRegressSaysWhyInvalid: regress exits 4 when nothing could be judged for the board's state, and says how
// many points of which runs, what the evidence showed, and what to do (fleet run --quiet-wait, the validity
// table of boards.toml), in text, on stderr and in JSON — for a baseline whose every run was invalid and for a
// judged run whose every point was.
func TestRegressSaysWhyInvalid(t *testing.T) {
	t.Run("every baseline run", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "fleet.db")
		ids := storeValidityNights(t, db, 60, 72, 90, 65, 80, 61, 1)
		stdout, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "nightly", "--run", "7")
		t.Logf("fleet regress --baseline nightly --run 7: exit %d\n%s%s", code, stdout, stderr)
		if code != exitInvalid {
			t.Fatalf("exit %d, want %d\n%s%s", code, exitInvalid, stdout, stderr)
		}
		want := "local not judged: all 6 runs the baseline matched invalid (6 of 6 points): background CPU 60–90 %; run on a quiet " +
			"board, wait for one with fleet run --quiet-wait 60s (quiet_wait in [boards.local.validity] in boards.toml), or set the " +
			"limits there (background_peak_pct, background_avg_pct)"
		if !strings.Contains(stderr, want) || !strings.Contains(unfold(stdout), want) {
			t.Errorf("text and stderr do not say %q\nstdout:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
		stdout, _, code = runFleet(t, "regress", "--db", db, "--baseline", "nightly", "--run", "7", "--format", "json")
		var r report.Regression
		if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != exitInvalid {
			t.Fatalf("JSON (exit %d): %v\n%s", code, err, stdout)
		}
		if len(r.Invalid) != 1 || r.Invalid[0].Side != report.InvalidBaseline || len(r.Invalid[0].Runs) != 6 ||
			r.Invalid[0].Runs[0] != ids[0] || r.Invalid[0].BackgroundMaxPct == nil || *r.Invalid[0].BackgroundMaxPct != 90 ||
			!strings.Contains(r.Invalid[0].Advice, "--quiet-wait") {
			t.Errorf("JSON invalid = %+v, want the 6 baseline runs with background CPU up to 90 %% and advice", r.Invalid)
		}
	})
	t.Run("every point of the run", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "fleet.db")
		ids := storeValidityNights(t, db, 1, 2, 1, 45)
		stdout, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "nightly", "--run", "4")
		if code != exitInvalid {
			t.Fatalf("exit %d, want %d\n%s%s", code, exitInvalid, stdout, stderr)
		}
		want := "local not judged: 1 series: 1 of 1 points of run 4 invalid: background CPU 45 %; run on a quiet board"
		if ids[3] != 4 || !strings.Contains(stderr, want) || !strings.Contains(unfold(stdout), want) {
			t.Errorf("text and stderr do not say %q\nstdout:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
	})
}
