package stats

import (
	"math"
)

// The change-point search: binary segmentation by Student's t-test on the logarithms of the values, with
// Bonferroni's correction for the split positions tried, then pruning of the change points whose step between
// the medians of the neighbouring segments is below the smallest change worth reporting, or whose test between
// those neighbours is no longer significant. This is Hunter's method (Fleming et al., "Hunter: Using Change
// Point Detection to Hunt for Performance Regressions", ICPE 2023, the basis of Apache Otava) without its
// sliding windows. We replaced E-Divisive means with a permutation test because:
//
//   - a permutation test's smallest p-value is 1/(1 + permutations): on short histories (4 runs a side, where
//     every lab starts and where a new kernel is judged) a real step was kept or dropped by the seed, and a
//     series of 8 runs has only C(8,4) = 70 distinct splits, so no number of permutations could make it
//     significant at α = 0.01. The t-test's p-value is computed, not sampled: the same history gives the same
//     bytes, and 3 runs a side can reach it;
//   - the logarithm makes throughput's multiplicative noise (lognormal: a busy night is slower, never faster)
//     close to normal and a step of x % the same size at every level, which is what the t-test assumes;
//   - an odd night inflates the t-test's variance instead of creating a split, and a split must leave MinSegment
//     runs on each side, so one outlier is never a change; what is reported is a step of the segments' medians,
//     which one odd night does not move.
//
// The price of the t-test is its assumption of normal noise between change points; TestFalsePositiveRate
// measures what that costs on lognormal noise with busy-night outliers and drifts, and TestRecall and
// bench/changes what steps of a given size are found at how many runs a side.

// Defaults of the change-point search.
const (
	// DefaultAlpha bounds the Bonferroni-corrected p-value of a split. 0.01 keeps the false-positive rate per
	// series under 1 % before the smallest-change filter, which removes most of the rest.
	DefaultAlpha = 0.01
	// DefaultMinSegment is the runs on each side of a change: fewer cannot tell a step from an outlier.
	DefaultMinSegment = 3
)

// SearchOptions tune ChangePoints. Zero fields take the defaults above; MinChange 0 reports every
// significant change.
type SearchOptions struct {
	Alpha      float64
	MinSegment int
	// MinChange is the smallest |median after / median before − 1| kept; weaker change points are dropped,
	// weakest first, and their neighbouring segments merged.
	MinChange float64
}

func (o SearchOptions) withDefaults() SearchOptions {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = DefaultAlpha
	}
	if o.MinSegment < 2 {
		o.MinSegment = DefaultMinSegment
	}
	return o
}

// ChangePoint is a position where the level of a series changes: xs[Index] is the first value after it.
type ChangePoint struct {
	Index int
	// P is the two-sided p-value of Student's t-test between the logarithms of the neighbouring segments,
	// multiplied by the number of split positions that segment offered (Bonferroni), at most 1.
	P float64
	// T is the t statistic (positive: the level rose).
	T float64
	// Step is median after / median before − 1, over the neighbouring segments.
	Step float64
}

// ChangePoints finds the change points of xs, ordered by index. Values must be positive and finite (the caller
// filters); the result depends on xs and o alone.
func ChangePoints(xs []float64, o SearchOptions) []ChangePoint {
	o = o.withDefaults()
	n := len(xs)
	if n < 2*o.MinSegment {
		return nil
	}
	z := clipOutliers(centredLogs(xs))
	var cuts []int
	for {
		bounds := withEnds(cuts, n)
		bestAt, bestP := -1, math.Inf(1)
		for i := 0; i+1 < len(bounds); i++ {
			lo, hi := bounds[i], bounds[i+1]
			if tau, _, p := bestSplit(z[lo:hi], o.MinSegment); tau > 0 && p < bestP {
				bestAt, bestP = lo+tau, p
			}
		}
		if bestAt < 0 || bestP > o.Alpha {
			break
		}
		cuts = insertSorted(cuts, bestAt)
	}
	for range len(cuts) + 1 {
		refine(z, cuts, o.MinSegment)
		weakest := weakestFailing(xs, z, cuts, o)
		if weakest < 0 {
			break
		}
		cuts = append(cuts[:weakest], cuts[weakest+1:]...)
	}
	out := make([]ChangePoint, len(cuts))
	bounds := withEnds(cuts, n)
	for i, c := range cuts {
		lo, hi := bounds[i], bounds[i+2]
		t, p := splitTest(z[lo:hi], c-lo, o.MinSegment)
		out[i] = ChangePoint{Index: c, P: p, T: t, Step: step(xs, lo, c, hi)}
	}
	return out
}

// weakestFailing returns the change point to drop next, or −1 when every one holds: first the one with the
// smallest step below MinChange, else the one whose test between its neighbours has the largest p above Alpha.
func weakestFailing(xs, z []float64, cuts []int, o SearchOptions) int {
	bounds := withEnds(cuts, len(xs))
	weakest, weakestStep, worstP := -1, math.Inf(1), o.Alpha
	smallFound := false
	for i, c := range cuts {
		lo, hi := bounds[i], bounds[i+2]
		if s := math.Abs(step(xs, lo, c, hi)); s < o.MinChange-1e-12 {
			if s < weakestStep {
				weakest, weakestStep, smallFound = i, s, true
			}
			continue
		}
		if smallFound {
			continue
		}
		if _, p := splitTest(z[lo:hi], c-lo, o.MinSegment); p > worstP {
			weakest, worstP = i, p
		}
	}
	return weakest
}

// refine moves each change point to the best split between its neighbours: a change found early was placed
// against sides that ran through later changes, and between its final neighbours the split is sharper.
func refine(z []float64, cuts []int, minSeg int) {
	for range 3 {
		moved := false
		for i := range cuts {
			lo, hi := 0, len(z)
			if i > 0 {
				lo = cuts[i-1]
			}
			if i+1 < len(cuts) {
				hi = cuts[i+1]
			}
			if tau, _, _ := bestSplit(z[lo:hi], minSeg); tau > 0 && lo+tau != cuts[i] {
				cuts[i], moved = lo+tau, true
			}
		}
		if !moved {
			return
		}
	}
}

// bestSplit returns the split τ of seg in [minSeg, len−minSeg] with the largest |t|, its t and its corrected
// p-value; τ is 0 when seg is too short to split.
func bestSplit(seg []float64, minSeg int) (tau int, t, p float64) {
	n := len(seg)
	if n < 2*minSeg {
		return 0, 0, 1
	}
	sum, sq := prefixSums(seg)
	bestAbs := -1.0
	for k := minSeg; k <= n-minSeg; k++ {
		if tk := tAt(sum, sq, k, n); math.Abs(tk) > bestAbs {
			tau, t, bestAbs = k, tk, math.Abs(tk)
		}
	}
	return tau, t, corrected(t, n, minSeg)
}

// splitTest is the t statistic and corrected p-value of splitting seg at k.
func splitTest(seg []float64, k, minSeg int) (t, p float64) {
	sum, sq := prefixSums(seg)
	t = tAt(sum, sq, k, len(seg))
	return t, corrected(t, len(seg), minSeg)
}

// corrected is the two-sided p of t with n−2 degrees of freedom times the split positions a segment of n offers.
func corrected(t float64, n, minSeg int) float64 {
	return math.Min(1, StudentTwoSidedP(t, float64(n-2))*float64(n-2*minSeg+1))
}

// tAt is Student's pooled-variance t statistic of seg[k:] against seg[:k], from prefix sums of the values and
// their squares. Two constant sides at different levels give ±Inf, at one level 0.
func tAt(sum, sq []float64, k, n int) float64 {
	m, r := float64(k), float64(n-k)
	sl, sr := sum[k], sum[n]-sum[k]
	ssl := sq[k] - sl*sl/m
	ssr := (sq[n] - sq[k]) - sr*sr/r
	diff := sr/r - sl/m
	s2 := math.Max(ssl+ssr, 0) / float64(n-2)
	if s2 <= 1e-24 {
		switch {
		case math.Abs(diff) <= 1e-12:
			return 0
		case diff > 0:
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	return diff / math.Sqrt(s2*(1/m+1/r))
}

func prefixSums(seg []float64) (sum, sq []float64) {
	sum, sq = make([]float64, len(seg)+1), make([]float64, len(seg)+1)
	for i, v := range seg {
		sum[i+1], sq[i+1] = sum[i]+v, sq[i]+v*v
	}
	return sum, sq
}

// centredLogs are the logarithms of xs minus their median, so the sums of squares keep their precision.
func centredLogs(xs []float64) []float64 {
	z := make([]float64, len(xs))
	for i, x := range xs {
		z[i] = math.Log(x)
	}
	m := Median(Sorted(z))
	for i := range z {
		z[i] -= m
	}
	return z
}

// clipOutliers pulls every value to within clipSigmas robust standard deviations of the running median of the
// five values around it (the window shifted inside the series at its ends). A running median of five keeps a
// step with three values on each side where it is and removes any burst of one or two odd values, so busy
// nights stop inflating the t-test's variance (hiding a real step) or moving a segment's mean (making a false
// one), while ordinary noise, almost never that far out, is left alone and stays independent. The robust
// deviation is the MAD of the run-to-run differences scaled to σ (× 1.4826 / √2).
func clipOutliers(z []float64) []float64 {
	n := len(z)
	if n < 5 {
		return z
	}
	d := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		d = append(d, z[i]-z[i-1])
	}
	sigma := mad(d) * 1.4826 / math.Sqrt2
	out := make([]float64, n)
	w := make([]float64, 5)
	for i := range z {
		lo := min(max(i-2, 0), n-5)
		copy(w, z[lo:lo+5])
		m := Median(Sorted(w))
		out[i] = math.Min(math.Max(z[i], m-clipSigmas*sigma), m+clipSigmas*sigma)
	}
	return out
}

// clipSigmas is how far from the running median a value may lie before it is pulled in: normal noise passes it
// in fewer than 3 of 1,000 values.
const clipSigmas = 3

// mad is the median absolute deviation from the median (unscaled).
func mad(xs []float64) float64 {
	s := Sorted(xs)
	m := Median(s)
	for i := range s {
		s[i] = math.Abs(s[i] - m)
	}
	return Median(Sorted(s))
}

// step is median(xs[c:hi]) / median(xs[lo:c]) − 1.
func step(xs []float64, lo, c, hi int) float64 {
	return Median(Sorted(xs[c:hi]))/Median(Sorted(xs[lo:c])) - 1
}

func withEnds(cuts []int, n int) []int {
	b := make([]int, 0, len(cuts)+2)
	b = append(b, 0)
	b = append(b, cuts...)
	return append(b, n)
}

func insertSorted(cuts []int, c int) []int {
	i := 0
	for i < len(cuts) && cuts[i] < c {
		i++
	}
	cuts = append(cuts, 0)
	copy(cuts[i+1:], cuts[i:])
	cuts[i] = c
	return cuts
}
