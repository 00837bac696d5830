package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
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

// TestSampleKeyOrders: the two orderings of SampleKey differ only where referenceLess says they do. keyLess puts
// a size's modes side by side, accelerators first; referenceLess gives each mode its run of sizes, modes as text.
func TestSampleKeyOrders(t *testing.T) {
	key := func(mode string, size int) SampleKey {
		return SampleKey{Board: "b", Mode: mode, Algorithm: "aes-128-cbc", BlockSize: size, Threads: 1}
	}
	keys := []SampleKey{key("cpu", 16), key("devcrypto", 64), key("cpu", 64), key("devcrypto", 16)}
	order := func(less func(a, b SampleKey) bool) string {
		ks := slices.Clone(keys)
		sort.Slice(ks, func(i, j int) bool { return less(ks[i], ks[j]) })
		var s []string
		for _, k := range ks {
			s = append(s, fmt.Sprintf("%s/%d", k.Mode, k.BlockSize))
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		name string
		less func(a, b SampleKey) bool
		want string
	}{
		{"keyLess", keyLess, "devcrypto/16 cpu/16 devcrypto/64 cpu/64"},
		{"referenceLess", referenceLess, "cpu/16 cpu/64 devcrypto/16 devcrypto/64"},
	} {
		if got := order(tc.less); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// Within one mode they agree, on every field keyLess orders by.
	same := []SampleKey{{Board: "b", Mode: "cpu", Algorithm: "rsa", Op: "sign", KeyBits: 2048, Threads: 2},
		{Board: "b", Mode: "cpu", Algorithm: "rsa", Op: "sign", KeyBits: 1024, Threads: 2},
		{Board: "b", Mode: "cpu", Algorithm: "rsa", Op: "sign", KeyBits: 4096, Threads: 1}}
	for _, a := range same {
		for _, b := range same {
			if keyLess(a, b) != referenceLess(a, b) {
				t.Errorf("%v < %v: keyLess %v, referenceLess %v", a, b, keyLess(a, b), referenceLess(a, b))
			}
		}
	}
}
