package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestWriteResultsEnergyJSON: results --format json carries each point's energy_j, power_w and
// energy_uj_per_byte, and leaves them out (never 0) where the energy is unknown, with the reason.
func TestWriteResultsEnergyJSON(t *testing.T) {
	j, w, uj := 9.0, 3.0, 0.183
	known := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16384, Threads: 1, BytesPerSec: 1e8,
		EnergyJ: &j, PowerW: &w, EnergySamples: 86, EnergyUJPerByte: &uj}
	unknown := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Threads: 1, BytesPerSec: 1e7,
		EnergyUnknown: "the sensor read -0.04"}
	ms := []store.Measurement{{ID: 1, RunID: 1, Board: "am64x", Point: known}, {ID: 2, RunID: 1, Board: "am64x", Point: unknown}}
	var b bytes.Buffer
	if err := WriteResults(&b, ms, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, b.String())
	}
	if len(got) != 2 || got[0]["energy_j"] != 9.0 || got[0]["power_w"] != 3.0 || got[0]["energy_uj_per_byte"] != 0.183 ||
		got[0]["energy_samples"] != 86.0 {
		t.Errorf("known energy: %v", got[0])
	}
	if _, ok := got[1]["energy_j"]; ok || got[1]["energy_unknown"] != "the sensor read -0.04" {
		t.Errorf("unknown energy: %v", got[1])
	}
}
