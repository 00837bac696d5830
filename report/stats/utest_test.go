package stats

import (
	"math"
	"testing"
)

// The want values were printed by golang.org/x/perf/benchmath.AssumeNothing.Compare(...).P
// (x/perf v0.0.0-20260908200009-22c9c6c9d4da, go-moremath v0.0.0-20210112150236-f10218a38794).
var uTestCases = []struct {
	x1, x2 []float64
	want   float64
}{
	{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.007936507936507938},
	{[]float64{120, 121, 119, 122, 120.5}, []float64{90, 91, 89.5, 92, 90.4}, 0.007936507936507938},
	{[]float64{10, 11, 12, 13}, []float64{10.5, 11.5, 12.5, 13.5}, 0.6857142857142857},
	{[]float64{1, 2, 3}, []float64{4, 5, 6}, 0.10000000000000002},
	{[]float64{1, 2}, []float64{3, 4}, 0.3333333333333333},
	{[]float64{1, 1, 2, 2, 3}, []float64{2, 3, 3, 4, 4}, 0.07936507936507936},
	{[]float64{5, 5, 5, 6, 6, 7}, []float64{6, 7, 7, 8, 8, 8, 9}, 0.011655011655011656},
	{seq(1, 51), seq(20, 71), 8.032440964768001e-08},
	{[]float64{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13},
		[]float64{3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15}, 0.07976831948772878},
	{[]float64{7, 7, 7}, []float64{7, 7, 7}, 1},
	{nil, []float64{1}, 1},
	// Deliberate difference: go-moremath says 1.333 (p > 1) here; we cap at 1.
	{[]float64{5}, []float64{5, 11}, 1},
	// Deliberate difference: go-moremath says 0 (an impossible tail) here; we use the observed tail.
	{[]float64{25}, []float64{17, 17}, 2.0 / 3},
}

func seq(from, to int) []float64 {
	var s []float64
	for i := from; i <= to; i++ {
		s = append(s, float64(i))
	}
	return s
}

func TestUTestMatchesBenchmath(t *testing.T) {
	for _, c := range uTestCases {
		got := UTest(c.x1, c.x2)
		if math.Abs(got-c.want) > 1e-12*math.Max(1, c.want) && math.Abs(got-c.want) > 1e-15 {
			t.Errorf("UTest(%v, %v) = %v, want %v", c.x1, c.x2, got, c.want)
		}
	}
}
