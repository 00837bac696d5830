package report

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// pulseLevel is 1, except factor for the nights [at, at+width).
func pulseLevel(at, width int, factor float64) level {
	return func(i int) float64 {
		if i >= at && i < at+width {
			return factor
		}
		return 1
	}
}

// TestChangesPulse: the shapes a lab sees most, a kernel regression reverted a week later, reported by `fleet
// changes` at both edges, each with the runs on either side, the medians of its neighbouring segments and the
// nights in them. Twenty quiet nightlies with throughput 84 % down for six of them, and a 3-night dip of −73 %:
// before the search tried arcs, neither gave any change. Ten noise draws each.
func TestChangesPulse(t *testing.T) {
	for _, tc := range []struct {
		name          string
		n, at, width  int
		factor, noise float64
	}{
		{"−84% for six of twenty nights", 20, 7, 6, 0.16, 0.02},
		{"−73% dip of three nights", 20, 10, 3, 0.27, 0.02},
		{"+25% for three nights, three before", 30, 3, 3, 1.25, 0.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 10; seed++ {
				h := synthHistories(synthSeries(seed, tc.n, 1, 400e6, tc.noise, pulseLevel(tc.at, tc.width, tc.factor)))
				cs := Changes(h, ChangeOptions{}).Changes
				if len(cs) != 2 {
					t.Errorf("seed %d: %d changes %+v, want the pulse's two edges", seed, len(cs), cs)
					continue
				}
				down, up := cs[0], cs[1]
				// run i+1 is night i
				if down.Run != int64(tc.at+1) || down.PreviousRun != int64(tc.at) || up.Run != int64(tc.at+tc.width+1) {
					t.Errorf("seed %d: changes at runs %d (after %d) and %d, want %d (after %d) and %d", seed,
						down.Run, down.PreviousRun, up.Run, tc.at+1, tc.at, tc.at+tc.width+1)
				}
				if down.NightsBefore != tc.at || down.NightsAfter != tc.width || up.NightsBefore != tc.width ||
					up.NightsAfter != tc.n-tc.at-tc.width {
					t.Errorf("seed %d: nights %d|%d and %d|%d, want %d|%d and %d|%d", seed, down.NightsBefore,
						down.NightsAfter, up.NightsBefore, up.NightsAfter, tc.at, tc.width, tc.width, tc.n-tc.at-tc.width)
				}
				if got := down.After / down.Before; math.Abs(got/tc.factor-1) > 0.05 {
					t.Errorf("seed %d: the pulse's level is %.3f of the level before, want %.2f", seed, got, tc.factor)
				}
				if got := up.After / down.Before; math.Abs(got-1) > 0.05 {
					t.Errorf("seed %d: after the pulse the level is %.3f of the level before, want it back", seed, got)
				}
				if math.Abs(down.Delta-(tc.factor-1)) > 0.05 || math.Abs(up.Delta-(1/tc.factor-1)) > 0.05*(1/tc.factor) {
					t.Errorf("seed %d: steps %s and %s, want %s and %s", seed, formatChange(down.Delta),
						formatChange(up.Delta), formatChange(tc.factor-1), formatChange(1/tc.factor-1))
				}
			}
		})
	}
}

// TestChangesPulseDeterministic: series with pulses, steps and both give the same changes searched with one
// goroutine and with eight.
func TestChangesPulseDeterministic(t *testing.T) {
	var series [][][]float64
	for k := range 22 {
		lv := pulseLevel(10+k, 3+k%8, 0.7+0.05*float64(k%5))
		if k%3 == 0 {
			p := lv
			lv = func(i int) float64 { return p(i) * steps([]int{45}, []float64{-0.1})(i) }
		}
		series = append(series, synthSeries(uint64(k), 60, 1+k%3, 400e6, 0.02, lv))
	}
	h := synthHistories(series...)
	search := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return fmt.Sprint(Changes(h, ChangeOptions{}).Changes)
	}
	one := search(1)
	if got := search(8); got != one {
		t.Fatalf("GOMAXPROCS 8:\n%s\nGOMAXPROCS 1:\n%s", got, one)
	}
	if n := len(Changes(h, ChangeOptions{}).Changes); n < 2*len(series) {
		t.Errorf("%d changes in %d series with a pulse each, want both edges of every pulse", n, len(series))
	}
}
