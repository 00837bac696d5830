package stats

import (
	"testing"
	"math"
)

func TestSim(t *testing.T) {
	for _, alpha := range []float64{0.001, 0.01, 0.05} {
		for _, sigma := range []float64{0.01, 0.02, 0.03} {
			fp, fpRaw := 0, 0
			for seed := uint64(0); seed < 1000; seed++ {
				h := history{n: 5 + int(seed%60), reps: 1, sigma: sigma, busy: 0.03, drift: 0.04 * float64(int(seed%3)-1)}
				xs := h.draw(seed)
				if len(ChangePoints(xs, SearchOptions{Alpha: alpha, MinChange: 0.05})) > 0 {
					fp++
				}
				if len(ChangePoints(xs, SearchOptions{Alpha: alpha})) > 0 {
					fpRaw++
				}
			}
			t.Logf("alpha %g sigma %g: FP %d/1000 raw %d", alpha, sigma, fp, fpRaw)
		}
		for _, side := range []int{3, 4, 5, 8} {
			for _, k := range []float64{3, 5, 8} {
				found := 0
				sigma := 0.02
				stepSize := -k * 0.954 * sigma
				for seed := uint64(0); seed < 500; seed++ {
					h := history{n: 2 * side, reps: 1, sigma: sigma, stepAt: side, stepSize: stepSize}
					cps := ChangePoints(h.draw(seed), SearchOptions{Alpha: alpha, MinChange: 0.05})
					if len(cps) == 1 && cps[0].Index == side {
						found++
					}
				}
				_ = math.Abs
				t.Logf("alpha %g side %d step %g×: %d/500", alpha, side, k, found)
			}
		}
	}
}
