package report

import (
	"math"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		in           []float64
		median, sprd float64
	}{
		{[]float64{100}, 100, 0},
		{[]float64{90, 100, 105}, 100, 0.10},
		{[]float64{95, 99, 101, 120}, 100, 0.20},
		{nil, 0, 0},
	} {
		s := Summarize(c.in)
		if s.Median != c.median || math.Abs(s.Spread()-c.sprd) > 1e-12 || s.N != len(c.in) {
			t.Errorf("Summarize(%v) = %+v spread %v, want median %v spread %v", c.in, s, s.Spread(), c.median, c.sprd)
		}
	}
	if got, want := formatCell(Summarize([]float64{90e6, 100e6, 105e6}), "MB/s", false), "100.0 ±10% (3)"; got != want {
		t.Errorf("formatCell = %q, want %q", got, want)
	}
}

func TestGeomean(t *testing.T) {
	if got, want := Geomean([]float64{1, 4, 16}), 4.0; math.Abs(got-want) > 1e-12 {
		t.Errorf("Geomean = %v, want %v", got, want)
	}
	if got := Geomean(nil); got != 0 {
		t.Errorf("Geomean(nil) = %v, want 0", got)
	}
}

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		unit string
		want float64
	}{{"kB/s", 1000}, {"MB/s", 1}, {"MiB/s", 1e6 / (1 << 20)}, {"Mbit/s", 8}, {"", 1}} {
		if got := inUnit(1e6, c.unit); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("1e6 B/s in %q = %v, want %v", c.unit, got, c.want)
		}
	}
	if _, err := canonicalUnit("GB/s"); err == nil {
		t.Error("canonicalUnit(GB/s) succeeded, want an error")
	}
	if got, want := formatChange(-0.25), "−25.0%"; got != want {
		t.Errorf("formatChange = %q, want %q", got, want)
	}
}

func TestGroupSaysWhenItPools(t *testing.T) {
	p := protocol.Point{Mode: "cpu", Algorithm: "sha256", Op: "digest", BlockSize: 64, Threads: 1, Timing: "wall", BytesPerSec: 1e6}
	ms := []store.Measurement{{RunID: 1, Board: "b", Point: p}, {RunID: 2, Board: "b", Point: p}}
	failed := p
	failed.Failed, failed.Error = true, "0.00s"
	ms = append(ms, store.Measurement{RunID: 2, Board: "b", Point: failed})
	cpuTimed := p
	cpuTimed.BlockSize, cpuTimed.Timing = 1024, "cpu"
	ms = append(ms, store.Measurement{RunID: 1, Board: "b", Point: cpuTimed})

	samples, warnings := Group(ms)
	if len(samples) != 2 {
		t.Fatalf("samples = %d, want 2", len(samples))
	}
	s := samples[1]
	if s.Key.BlockSize != 64 {
		s = samples[0]
	}
	if got, want := len(s.Values), 2; got != want || s.Failed != 1 || s.Errors[0] != "0.00s" {
		t.Errorf("sample = %+v, want 2 values and 1 failed point", s)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "runs 1, 2 pooled") {
		t.Errorf("warnings = %q, want one naming runs 1 and 2", warnings)
	}
	for _, x := range samples {
		if x.Key.BlockSize == 1024 && !x.CPUTimed {
			t.Error("CPU-timed point did not mark its sample")
		}
	}
}
