package store

import (
	"context"
	"errors"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestPointEnergyRoundTrip stores a point with energy, one whose energy is unknown (NULL, never 0) and reads both
// back, on every backend.
func TestPointEnergyRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		j, watts, uj := 12.5, 4.1, -0.002
		known := pt("cpu", "aes-128-cbc", 16384, 0, 1e8)
		known.EnergyJ, known.PowerW, known.EnergySamples, known.EnergyUJPerByte = &j, &watts, 86, &uj
		unknown := pt("cpu", "aes-128-cbc", 16, 0, 1e7)
		unknown.EnergyUnknown, unknown.EnergySamples = "the sensor read -0.04", 3
		if err := errors.Join(w.Point(ctx, "am64x", known), w.Point(ctx, "am64x", unknown),
			w.BoardFinished(ctx, "am64x", "ok", ""), w.Finish(ctx, protocol.StatusOK)); err != nil {
			t.Fatal(err)
		}
		ms, err := db.Measurements(ctx, Filter{RunID: w.RunID()})
		if err != nil || len(ms) != 2 {
			t.Fatalf("Measurements = %d, %v", len(ms), err)
		}
		for _, m := range ms {
			p := m.Point
			switch p.BlockSize {
			case 16384:
				if p.EnergyJ == nil || *p.EnergyJ != j || *p.PowerW != watts || p.EnergySamples != 86 || *p.EnergyUJPerByte != uj {
					t.Errorf("known energy read back as %v J, %v W, %d samples, %v µJ/B", p.EnergyJ, p.PowerW, p.EnergySamples, p.EnergyUJPerByte)
				}
			case 16:
				if p.EnergyJ != nil || p.PowerW != nil || p.EnergyUJPerByte != nil || p.EnergyUnknown != "the sensor read -0.04" {
					t.Errorf("unknown energy read back as %v J, %v W, %v µJ/B, %q", p.EnergyJ, p.PowerW, p.EnergyUJPerByte, p.EnergyUnknown)
				}
			}
		}
	})
}
