package agent

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestSweepRealOpenSSL measures aes-128-cbc with this host's openssl in the soft and cpu modes.
func TestSweepRealOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	plan := protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Modes: []string{"soft", "cpu"}, Sizes: []int{8192}, Seconds: 0.3}
	var out bytes.Buffer
	done, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out))
	if err != nil {
		t.Fatal(err)
	}
	var facts *protocol.Facts
	points := map[string]*protocol.Point{}
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypeFacts:
			facts = m.Facts
		case protocol.TypePoint:
			points[m.Point.Mode] = m.Point
		case protocol.TypeError, protocol.TypeSkip:
			t.Errorf("unexpected %s: %s %+v", m.Type, m.Error, m.Skip)
		}
	}
	if done.Points != 2 || done.Failed != 0 {
		t.Fatalf("done = %+v, want 2 points, none failed", done)
	}
	for _, mode := range []string{"soft", "cpu"} {
		p := points[mode]
		if p == nil {
			t.Fatalf("no %s point", mode)
		}
		if p.WallS <= 0 || p.UserS+p.SysS <= 0 || p.BytesPerSec <= 0 || p.CPUPct <= 0 || p.BlockSize != 8192 {
			t.Errorf("%s point %+v: want wall, CPU time, throughput and block size 8192", mode, p)
		}
		if p.Algorithm != "aes-128-cbc" || p.Timing != "wall" || p.RawID == 0 {
			t.Errorf("%s point %+v: want aes-128-cbc on wall time with its raw output", mode, p)
		}
		t.Logf("%s: %.0f MB/s, wall %.2f s, user %.2f s, sys %.2f s, cpu %.0f%%, system busy %.0f%%",
			mode, p.BytesPerSec/1e6, p.WallS, p.UserS, p.SysS, p.CPUPct, p.SysBusyPct)
	}
	if facts == nil || !hasCPUFeature(facts.CPU, "aes") {
		t.Skip("no AES instructions on this CPU: soft and cpu run the same code")
	}
	if facts.CPU.Implementer == "0x00" {
		// QEMU's TCG "max" CPU (implementer 0): it emulates the AES instructions slower than plain C runs
		t.Skip("emulated ARM CPU: its AES instructions are not faster than software")
	}
	// per CPU-second, not per wall-second: on a busy machine a point may have the CPU a fifth of its second (cpu
	// 300 MB/s at 21 % beside soft 235 MB/s at 80 % was seen), while the work per CPU-second is the code's own
	perCPU := func(p *protocol.Point) float64 { return p.BytesPerSec * p.WallS / (p.UserS + p.SysS) }
	if soft, cpu := perCPU(points["soft"]), perCPU(points["cpu"]); soft*2 > cpu {
		t.Errorf("soft %.0f MB per CPU-second is not clearly slower than cpu %.0f: the capability mask did not turn AES off", soft/1e6, cpu/1e6)
	}
}

// TestSweepSeriesRealOpenSSL measures the default sizes with this host's openssl both ways, one process for the
// series and one process per size (the same sizes in another order), and compares them: the rates per CPU-second
// agree within this busy machine's noise (a factor 1.5), every point of the series is timed by its own -mr lines (its wall
// brackets openssl's own elapsed time, its CPU within its wall), and the series ran as one openssl.
func TestSweepSeriesRealOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	if testing.Short() {
		t.Skip("12 s of openssl")
	}
	measure := func(sizes []int) (map[int]*protocol.Point, int) {
		plan := protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Modes: []string{"cpu"}, Sizes: sizes, Seconds: 1}
		var out bytes.Buffer
		if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
			t.Fatal(err)
		}
		points, raws := map[int]*protocol.Point{}, 0
		for _, m := range decodeAll(t, out.Bytes()) {
			switch m.Type {
			case protocol.TypePoint:
				points[m.Point.BlockSize] = m.Point
			case protocol.TypeRaw:
				raws++
			case protocol.TypeError, protocol.TypeSkip:
				t.Fatalf("unexpected %s: %s %+v", m.Type, m.Error, m.Skip)
			}
		}
		return points, raws
	}
	series, seriesRuns := measure(nil)
	perSize, perSizeRuns := measure([]int{16384, 8192, 1024, 256, 64, 16})
	if seriesRuns != 1 || perSizeRuns != 6 {
		t.Fatalf("%d and %d openssl runs, want 1 for the series and 6 one per size", seriesRuns, perSizeRuns)
	}
	for _, size := range protocol.DefaultSizes {
		s, p := series[size], perSize[size]
		if s == nil || p == nil {
			t.Fatalf("%d B: series point %v, per-size point %v", size, s, p)
		}
		// on this shared machine openssl gets a varying share of a core: its bytes per CPU-second are what
		// compares (bench/README.md §a), the wall rates are logged
		perCPU := func(p *protocol.Point) float64 { return p.BytesPerSec * p.Seconds / (p.UserS + p.SysS) }
		ratio := perCPU(s) / perCPU(p)
		t.Logf("%5d B: series %.0f MB/s, %.0f MB per CPU-s (wall %.3f s, openssl %.3f s, user %.2f sys %.2f); "+
			"per size %.0f MB/s, %.0f MB per CPU-s (wall %.3f s, user %.2f sys %.2f); per CPU-s ratio %.3f, wall %.3f",
			size, s.BytesPerSec/1e6, perCPU(s)/1e6, s.WallS, s.Seconds, s.UserS, s.SysS,
			p.BytesPerSec/1e6, perCPU(p)/1e6, p.WallS, p.UserS, p.SysS, ratio, s.BytesPerSec/p.BytesPerSec)
		if ratio < 1/1.5 || ratio > 1.5 {
			t.Errorf("%d B: series %.0f MB per CPU-second against %.0f one process per size: beyond a factor 1.5",
				size, perCPU(s)/1e6, perCPU(p)/1e6)
		}
		// the +DT and +R lines bracket openssl's own timing, and nothing of its start: the per-size process's
		// wall is openssl's time plus its start and exit (the agent, descheduled on this busy machine, may read
		// a line late)
		if s.WallS < s.Seconds-0.15 || s.WallS > s.Seconds+0.25 {
			t.Errorf("%d B: series wall %.3f s, want openssl's own %.3f s (its start and exit in none)", size, s.WallS, s.Seconds)
		}
		if cpu := s.UserS + s.SysS; cpu <= 0 || cpu > s.WallS*1.1+0.02 {
			t.Errorf("%d B: series CPU %.3f s for a wall of %.3f s: not the size's own", size, cpu, s.WallS)
		}
	}
}
