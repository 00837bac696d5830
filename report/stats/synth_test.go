package stats

import (
	"math"
	"math/rand/v2"
)

// history is a synthetic series with known truth: n runs of level × lognormal noise, each run the median of reps
// repeats, with busy nights (a rare run 20–50 % slow) and a slow drift, all drawn from a seeded generator.
type history struct {
	n, reps  int
	sigma    float64      // of the lognormal noise of one repeat
	busy     float64      // chance that a run is a busy night
	drift    float64      // total relative drift over the series, linear
	stepAt   int          // 0: none
	stepSize float64      // relative
	shifts   []levelShift // further changes of level: pulses, more steps
}

// levelShift multiplies the level by factor from run at on; a pulse is two, the second undoing the first.
type levelShift struct {
	at     int
	factor float64
}

// pulse is a change of level by factor for the runs [at, at+width), then back.
func pulse(at, width int, factor float64) []levelShift {
	return []levelShift{{at, factor}, {at + width, 1 / factor}}
}

func (h history) draw(seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	xs := make([]float64, h.n)
	for i := range xs {
		level := 400e6 * (1 + h.drift*float64(i)/float64(max(h.n-1, 1)))
		if h.stepAt > 0 && i >= h.stepAt {
			level *= 1 + h.stepSize
		}
		for _, sh := range h.shifts {
			if i >= sh.at {
				level *= sh.factor
			}
		}
		if h.busy > 0 && rng.Float64() < h.busy {
			level *= 1 - 0.2 - 0.3*rng.Float64()
		}
		vs := make([]float64, h.reps)
		for r := range vs {
			vs[r] = level * math.Exp(h.sigma*rng.NormFloat64())
		}
		xs[i] = Median(Sorted(vs))
	}
	return xs
}
