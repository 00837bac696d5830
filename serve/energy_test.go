package serve

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestRunPageEnergyChart: the page of a run whose points carry energy charts µJ/B against block size, with the
// crossover where devcrypto starts to cost less than cpu (1024 B); a run without energy has no energy chart.
func TestRunPageEnergyChart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.Now = fixtureClock()
	writeRun(t, db, "nightly", 1, true) // run 1: no energy
	w, err := db.BeginRun(ctx, store.RunInfo{Label: "energy"})
	must(t, err)
	must(t, w.BoardStarted(ctx, "am64x"))
	uj := map[string][]float64{"cpu": {0.03, 0.031, 0.032}, "devcrypto": {0.5, 0.02, 0.004}}
	for mode, per := range uj {
		for i, size := range []int{16, 1024, 16384} {
			v := per[i]
			must(t, w.Point(ctx, "am64x", protocol.Point{Mode: mode, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: size,
				Threads: 1, Count: 1000, Seconds: 1, Timing: "wall", BytesPerSec: float64(size) * 1e4, WallS: 1, CPUPct: 80,
				EnergyUJPerByte: &v}))
		}
	}
	must(t, w.BoardFinished(ctx, "am64x", protocol.StatusOK, ""))
	must(t, w.Finish(ctx, protocol.StatusOK))
	must(t, db.Close())
	srv := startServer(t, path)
	get := func(p string) string {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", p, resp.StatusCode, body)
		}
		return string(body)
	}
	page := get("/runs/2")
	for _, want := range []string{"Energy per byte", "aes-128-cbc: energy per byte versus block size", "µJ/B above idle",
		"am64x devcrypto costs less than cpu from 1024 B"} {
		if !strings.Contains(page, want) {
			t.Errorf("/runs/2 lacks %q", want)
		}
	}
	if page := get("/runs/1"); strings.Contains(page, "energy-charts") || strings.Contains(page, "µJ/B") {
		t.Error("/runs/1 (no energy) shows an energy chart")
	}
}
