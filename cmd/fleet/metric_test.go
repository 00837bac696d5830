package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// storeEnergyNights stores one run per night of am64x afalg aes-128-cbc at 16384 B, three repeats, at the same
// throughput each night and uj[night] µJ/B.
func storeEnergyNights(t *testing.T, path string, uj []float64) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for n, v := range uj {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Started: time.Date(2026, 2, 1+n, 3, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		for r := range 3 {
			x, e := 1e8*(1+0.003*float64(r-1)), v*(1+0.004*float64(r-1))
			p := protocol.Point{Mode: protocol.ModeAFALG, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
				Repeat: r, Count: x / 16384, Seconds: 1, Timing: "wall", BytesPerSec: x, WallS: 1, EnergyUJPerByte: &e}
			if err := w.Point(ctx, "am64x", p); err != nil {
				t.Fatal(err)
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

// TestRegressChangesMetricEnergy: with --metric energy, a night whose µJ/B rose 30 % at the same throughput is
// a regression (exit 1, the first night after the step judged against the six before) and a change --fail-on-drop fails on; with the default metric neither is; a metric
// that is neither is refused with exit 2, naming the flag.
func TestRegressChangesMetricEnergy(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	uj := []float64{0.040, 0.0402, 0.0399, 0.0401, 0.040, 0.0403, 0.052, 0.0521, 0.0519, 0.0522}
	storeEnergyNights(t, db, uj)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"regress", "--baseline", "nightly", "--run", "7"}, 0, "unchanged"},
		{[]string{"regress", "--baseline", "nightly", "--run", "7", "--metric", "energy"}, 1, "regressed"},
		{[]string{"regress", "--baseline", "nightly", "--metric", "watts"}, 2, "--metric"},
		{[]string{"changes", "--fail-on-drop", "10%"}, 0, "no change"},
		{[]string{"changes", "--fail-on-drop", "10%", "--metric", "energy"}, 1, "1 rise(s) in µJ/B of at least 10%"},
		{[]string{"changes", "--metric", "joules"}, 2, "--metric"},
	} {
		stdout, stderr, code := runFleet(t, append([]string{"--db", db}, tc.args...)...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("fleet %s: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.code,
				tc.want, stdout, stderr)
		}
	}
}
