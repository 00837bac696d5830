package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// energyBoards is two boards: am64x with an INA226 on its core rail, whose accelerator is slower and costs more
// per byte than cpu at small blocks, costs less from 1024 B (though it is only faster from 16384 B), and whose
// 16 B afalg points were too short for the sensor (energy unknown); and rpi4 without a power source.
func energyBoards() []store.Measurement {
	type path struct {
		mode string
		mbs  []float64 // MB/s per size
		uj   []float64 // µJ/B per size; 0: unknown
	}
	sizes := []int{16, 256, 1024, 16384}
	var ms []store.Measurement
	id := int64(0)
	add := func(board string, p path, withEnergy bool) {
		for si, size := range sizes {
			for rep := range 3 {
				id++
				bps := p.mbs[si] * 1e6 * (1 + 0.01*float64(rep-1))
				pt := protocol.Point{Mode: p.mode, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: size, Threads: 1,
					Repeat: rep, Seconds: 3, Count: bps * 3 / float64(size), BytesPerSec: bps, CPUPct: 100}
				if withEnergy {
					if p.uj[si] == 0 {
						pt.EnergyUnknown, pt.Flags = "short: 2 sensor intervals", []string{protocol.FlagEnergyShort}
					} else {
						uj := p.uj[si] * (1 + 0.02*float64(rep-1))
						pt.EnergyUJPerByte = &uj
					}
				}
				ms = append(ms, store.Measurement{ID: id, RunID: 7, Board: board, Point: pt})
			}
		}
	}
	add("am64x", path{"afalg", []float64{1.9, 24, 61, 182}, []float64{0, 0.21, 0.041, 0.0093}}, true)
	add("am64x", path{"cpu", []float64{78, 110, 115, 120}, []float64{0.032, 0.025, 0.044, 0.0412}}, true)
	add("rpi4", path{"cpu", []float64{95, 130, 140, 141}, nil}, false)
	return ms
}

// TestCompareEnergy: µJ/B stands beside MB/s and CPU % where the points carry energy, "–" where they say it is
// unknown (the reason in JSON), nothing for the board without a sensor; the energy crossover is where afalg
// costs less per byte than cpu at that and every larger size (1024 B), not where it is faster (16384 B).
func TestCompareEnergy(t *testing.T) {
	c, err := Compare(energyBoards(), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Crossovers) != 1 || c.Crossovers[0].BlockSize != 16384 {
		t.Errorf("throughput crossovers = %v, want afalg at 16384 B", c.Crossovers)
	}
	if len(c.EnergyCrossovers) != 1 || c.EnergyCrossovers[0].Never || c.EnergyCrossovers[0].BlockSize != 1024 {
		t.Errorf("energy crossovers = %v, want afalg at 1024 B", c.EnergyCrossovers)
	}
	for _, r := range c.Rows {
		for i, cell := range r.Cells {
			col := c.Columns[i]
			switch {
			case col.Board == "rpi4" && cell.hasEnergy():
				t.Errorf("%d B %s: energy %v %q on a board without a sensor", r.BlockSize, col.Name(), cell.UJPerByte, cell.EnergyUnknown)
			case col.Name() == "am64x afalg" && r.BlockSize == 16 && (cell.UJPerByte != nil || cell.EnergyUnknown == ""):
				t.Errorf("16 B afalg: energy %v %q, want unknown with the reason", cell.UJPerByte, cell.EnergyUnknown)
			case col.Name() == "am64x cpu" && r.BlockSize == 1024 && (cell.UJPerByte == nil || *cell.UJPerByte != 0.044):
				t.Errorf("1024 B cpu: µJ/B %v, want the median 0.044", cell.UJPerByte)
			}
		}
	}
	for _, tc := range []struct {
		name, format string
		layout       Layout
	}{
		{"compare_energy.txt", "text", Layout{}},
		{"compare_energy_wide.txt", "text", Layout{Wide: true}},
		{"compare_energy.md", "markdown", Layout{}},
		{"compare_energy.csv", "csv", Layout{}},
		{"compare_energy.json", "json", Layout{}},
	} {
		var b bytes.Buffer
		if err := WriteCompareLayout(&b, c, tc.format, tc.layout); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, tc.name+".golden", b.Bytes())
	}
}

// TestCompareEnergyJSON: a cell with energy carries uj_per_byte, one whose energy is unknown carries the reason
// and no figure, and a board without a sensor carries neither (never 0).
func TestCompareEnergyJSON(t *testing.T) {
	c, err := Compare(energyBoards(), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rows []struct {
			BlockSize int              `json:"block_size"`
			Cells     []map[string]any `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Rows {
		for _, cell := range r.Cells {
			uj, hasUJ := cell["uj_per_byte"]
			why, hasWhy := cell["energy_unknown"]
			switch board, mode := cell["board"], cell["mode"]; {
			case board == "rpi4" && (hasUJ || hasWhy):
				t.Errorf("%d B rpi4: uj_per_byte %v, energy_unknown %v", r.BlockSize, uj, why)
			case board == "am64x" && mode == "afalg" && r.BlockSize == 16 && (hasUJ || !strings.Contains(why.(string), "short")):
				t.Errorf("16 B afalg: uj_per_byte %v, energy_unknown %v", uj, why)
			case board == "am64x" && r.BlockSize > 16 && !hasUJ:
				t.Errorf("%d B am64x %s: no uj_per_byte", r.BlockSize, mode)
			}
		}
	}
}

// TestCompareWithoutEnergy: a comparison no point of which carries energy prints no µJ/B column, note or table.
func TestCompareWithoutEnergy(t *testing.T) {
	c, err := Compare(s00(), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"text", "markdown", "csv", "json"} {
		var b bytes.Buffer
		if err := WriteCompare(&b, c, f); err != nil {
			t.Fatal(err)
		}
		if s := b.String(); strings.Contains(s, "µJ") || strings.Contains(s, "uj_per_byte") || strings.Contains(s, "energy") {
			t.Errorf("%s: energy in a comparison without it:\n%s", f, s)
		}
	}
}

func TestFormatUJ(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.183: "0.183", 0.0021449: "0.00214", 12.54: "12.5", 1234.5: "1234",
		-0.002: "−0.00200", 3.2e-9: "0.000000"} {
		if got := formatUJ(v); got != want {
			t.Errorf("formatUJ(%v) = %q, want %q", v, got, want)
		}
	}
}
