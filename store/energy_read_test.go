package store

import (
	"context"
	"errors"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestEnergyReadForJudging: the reads fleet regress and fleet changes judge by carry each point's µJ/B —
// Filter.ForRegression's columns, and SeriesHistories with Energy, which takes the figure in the place of the
// throughput and leaves out the points without one — on every backend.
func TestEnergyReadForJudging(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		uj := 0.041
		known := pt("cpu", "aes-128-cbc", 16384, 0, 1e8)
		known.EnergyUJPerByte = &uj
		unknown := pt("cpu", "aes-128-cbc", 16384, 1, 1.01e8)
		unknown.EnergyUnknown = "the sensor vanished"
		if err := errors.Join(w.Point(ctx, "am64x", known), w.Point(ctx, "am64x", unknown),
			w.BoardFinished(ctx, "am64x", "ok", ""), w.Finish(ctx, protocol.StatusOK)); err != nil {
			t.Fatal(err)
		}
		ms, err := db.Measurements(ctx, Filter{RunID: w.RunID(), Board: "am64x", ForRegression: true})
		if err != nil || len(ms) != 2 {
			t.Fatalf("Measurements(ForRegression) = %d, %v", len(ms), err)
		}
		for _, m := range ms {
			switch m.BytesPerSec { // repeat is not among the columns a regression reads
			case 1e8:
				if m.EnergyUJPerByte == nil || *m.EnergyUJPerByte != uj {
					t.Errorf("ForRegression: µJ/B %v, want %v", m.EnergyUJPerByte, uj)
				}
			default:
				if m.EnergyUJPerByte != nil || m.EnergyUnknown != "the sensor vanished" {
					t.Errorf("ForRegression: unknown energy read as %v, %q", m.EnergyUJPerByte, m.EnergyUnknown)
				}
			}
		}
		for _, tc := range []struct {
			energy bool
			want   []float64
		}{{false, []float64{1e8, 1.01e8}}, {true, []float64{uj}}} {
			h, err := db.SeriesHistories(ctx, HistoryFilter{Energy: tc.energy})
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Series) != 1 || len(h.Series[0].Nights) != 1 {
				t.Fatalf("energy %v: %d series", tc.energy, len(h.Series))
			}
			if got := h.Series[0].Nights[0].Values; len(got) != len(tc.want) || got[0] != tc.want[0] {
				t.Errorf("energy %v: values %v, want %v", tc.energy, got, tc.want)
			}
		}
	})
}
