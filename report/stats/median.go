package stats

import (
	"math"
	"sort"
)

// Median is the median of sorted values (0 for none).
func Median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Sorted returns a sorted copy of xs.
func Sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// MADOfDifferences is the median absolute deviation of the relative run-to-run differences of xs
// (xs[i+1]/xs[i] − 1), a spread that one step or one odd night barely moves: the noise a step is measured
// against. 0 with fewer than two values.
func MADOfDifferences(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	d := make([]float64, 0, len(xs)-1)
	for i := 1; i < len(xs); i++ {
		d = append(d, xs[i]/xs[i-1]-1)
	}
	sort.Float64s(d)
	m := Median(d)
	for i := range d {
		d[i] = math.Abs(d[i] - m)
	}
	sort.Float64s(d)
	return Median(d)
}
