package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestCompareKcapiDrivers: of the implementations kcapi:all measured, the offload driver is the accelerator
// (its speedup over cpu and its crossover, first in the table), and the CPU implementations through AF_ALG are
// not: no crossover, no ×cpu.
func TestCompareKcapiDrivers(t *testing.T) {
	var ms []store.Measurement
	add := func(mode string, size int, mbps, cpu float64) {
		d, _ := protocol.KCAPIDriver(mode)
		ms = append(ms, store.Measurement{RunID: 1, Board: "am64x", Point: protocol.Point{Mode: mode, Algorithm: "aes-128-cbc",
			Op: "encrypt", BlockSize: size, Threads: 1, Timing: "wall", BytesPerSec: mbps * 1e6, CPUPct: cpu, Driver: d}})
	}
	add("cpu", 16, 80, 100)
	add("cpu", 16384, 120, 100)
	add("kcapi:cbc-aes-ce", 16, 10, 100)
	add("kcapi:cbc-aes-ce", 16384, 110, 100)
	add("kcapi:cbc-aes-sa2ul", 16, 2, 60)
	add("kcapi:cbc-aes-sa2ul", 16384, 180, 20)
	c, err := Compare(ms, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Crossovers) != 1 || c.Crossovers[0].Mode != "kcapi:cbc-aes-sa2ul" || c.Crossovers[0].BlockSize != 16384 {
		t.Errorf("crossovers = %+v, want kcapi:cbc-aes-sa2ul from 16384 B only", c.Crossovers)
	}
	if c.Columns[0].Mode != "kcapi:cbc-aes-sa2ul" {
		t.Errorf("first column %s, want the offload driver", c.Columns[0].Mode)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "crossover over cpu: kcapi:cbc-aes-sa2ul 16384 B") || strings.Contains(out, "kcapi:cbc-aes-ce 16384 B") {
		t.Errorf("compare text:\n%s", out)
	}
}
