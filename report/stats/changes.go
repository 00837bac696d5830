package stats

import (
	"math"
)

// The change-point search: circular binary segmentation (changes_arcs.go) by Student's t-test on the logarithms
// of the values, with Bonferroni's correction for the split positions and arcs tried, then pruning of the change
// points whose step between the neighbouring segments is below the smallest change worth reporting, or whose
// test between those neighbours is no longer significant. Without the arcs this is Hunter's method (Fleming et
// al., "Hunter: Using Change Point Detection to Hunt for Performance Regressions", ICPE 2023, the basis of Apache
// Otava) without its sliding windows. We replaced E-Divisive means with a permutation test because:
//
//   - a permutation test's smallest p-value is 1/(1 + permutations): on short histories (4 runs a side, where
//     every lab starts and where a new kernel is judged) a real step was kept or dropped by the seed, and a
//     series of 8 runs has only C(8,4) = 70 distinct splits, so no number of permutations could make it
//     significant at α = 0.01. The t-test's p-value is computed, not sampled: the same history gives the same
//     bytes, and 3 runs a side can reach it;
//   - the logarithm makes throughput's multiplicative noise (lognormal: a busy night is slower, never faster)
//     close to normal and a step of x % the same size at every level, which is what the t-test assumes;
//   - an odd night inflates the t-test's variance instead of creating a split, and a split must leave MinSegment
//     runs on each side, so one outlier is never a change.
//
// Three choices make a step of 5 × the noise (the MAD of the run-to-run differences, 0.954 σ) found with 3 runs
// a side, where the plain t-test at α 0.01 found it in 86 % of histories (TestRecall):
//
//   - A short history (fewer than ShortRuns runs) keeps a split at ShortAlphaFactor × α when its step is at
//     least MinChange. Between 3 and 3 runs the t-test has 4 degrees of freedom and one position to try, and no
//     test that estimates the noise from those 6 values does better (for a given split the t-test is the
//     uniformly most powerful unbiased one; the MAD of 5 differences, one of them the step, is a worse scale):
//     at α 0.01 its critical t is 4.6, and a 5σ step (t ≈ 6.1 with the true σ) fails it whenever the sample's
//     spread comes out a third over σ. At 10α the critical t is 2.1 and the step is found in 99.7 %. The false
//     positives this admits must also step by MinChange, which noise of a few per cent rarely does: on the
//     realistic no-step histories of 6 to 15 runs the rate is 0.68–0.93 % per length (20,000 histories each)
//     against 0.3–0.6 % with α alone (TestFalsePositiveRateShort; most of it a 4 % drift in 2 % noise, whose
//     halves differ by about 2 % before the noise; a factor of 6 instead of 10 lowers it by 0.1 point and
//     loses 3-a-side recall, since most of those splits pass α itself). From 16 runs the series gives the test
//     14 degrees of freedom and α alone finds the step with 3 runs on a side; a larger α there only adds second,
//     spurious splits inside the segments of a real change. With MinChange 0 (every significant change) α is
//     never relaxed.
//   - The step is the Hodges–Lehmann shift, the median of the differences of every value after the split minus
//     every value before, in logarithms: almost as steady as the difference of the means on normal noise (3
//     against 3 under a 9.5 % step, the medians of the sides step by less than 5 % in 0.53 % of histories, the
//     Hodges–Lehmann shift in 0.25 %), and moved by neither one odd night nor two beside each other.
//   - Busy nights are clipped (clipOutliers) only from clipMinRuns runs on: in a shorter series the running
//     median of five straddles the step for most values and the MAD of ten differences, one of them the step,
//     is no steady scale, so clipping pulled true values towards the other level (3 runs a side: 99.3 % found
//     with clipping, 99.7 % without). There the t-test's variance absorbs a busy night and the Hodges–Lehmann
//     shift ignores it.
//
// Every shape is found at its edges: a step, a pulse (down and back, up and back, from MinSegment runs wide),
// several of either. Binary segmentation alone could not see a pulse: its first split at either edge compares
// one level with a mixture of both, whose spread hides the step, so a −84 % pulse of six nights in twenty was no
// change at all. The arcs of circular binary segmentation test the pulse against the runs around it, and both of
// its edges are cut at once; refinement and pruning then treat each edge as a step between its neighbours, which
// a pulse's edges are. We kept the segmentation rather than exact segmentation (optimal partitioning, PELT)
// because its tests are the ones above, with computed p-values and the short-history rule measured for them,
// where a penalised cost needs a penalty calibrated against the false-positive target at every length and noise;
// and because a history without a pulse is cut exactly as before whenever no arc beats the best split, so every
// figure measured for steps still holds (TestRecall's table is unchanged to the last digit, TestRecallNearEnds
// moved by 0.1 point in 2 of its 14 cells). Its price and limits, measured by TestRecallPulses and
// TestRecallTwoSteps (bench/README.md §f has the tables):
//
//   - a pulse of 5× the noise with 3 runs or more on each side is found (both edges, within one run) in 96.4–98.9 %
//     of histories when it is 3 runs wide, 97.8–99.8 % when 6 or 10, a pulse of 10× or −84 % in 99.4–100 %;
//   - with only MinSegment runs outside it, before or after, in a long series, a 5× pulse of 3 runs is found in
//     80–82 %, of 6 runs in 94–95 %, of 10 in 98–99 %: that edge is held by the t-test of its 3 outside runs
//     against the pulse alone, without the short-history rule, which is for a short series (applied to a short
//     pair of neighbours it raised the false positives from 0.66 % to 0.81 % before isLevel, nearly all near an end);
//   - two steps with 3 runs on each of the three levels, a staircase, are both found in 88 % at 5× (99 % from 5
//     runs a level): to the first split it is a ramp, and the split inside the middle level leaves segments too
//     short to split again;
//   - false positives: over 20,000 realistic no-change histories of 6 to 65 runs, 0.48 % (0.41 % without arcs;
//     of those with 2 % noise, 1.08 % against 1.02 %). What the arcs add are clusters of busy nights, which look
//     like a pulse of 20–50 %: three in a row is one by any measure, and two of three, which the t-test cannot
//     tell from one either, the arc's level test (isLevel) refuses, at a cost of 0.4–1.1 points of recall for
//     5× pulses of 3 runs (it took the false positives from 0.66 % to 0.48 %, and two busy nights of three in 2 %
//     noise from a pulse in 26 % of histories to none: TestChangePointsTwoBusyNights);
//   - cost: an arc scan is O(n · maxArcWidth) per segment, one multiply-add per arc.
//
// A change is found at its run, or one run off: a run beside a step of 5σ lies nearer the other level with
// probability Φ(−2.5) ≈ 0.6 % on each side, and no method can tell it belongs where it is; each edge of a pulse
// is such a step. The least-squares split, told there is exactly one step, is exact in 97.5 % of histories at 4
// runs a side and 98.7 % from 8, and the search, which is not told, matches it (TestRecallPlacementBound). The
// price of the t-test is its assumption of normal noise between change points; TestFalsePositiveRate and
// TestFalsePositiveRateShort measure what that costs on lognormal noise with busy-night outliers and drifts,
// and TestRecall, TestRecallNearEnds, TestRecallPulses, TestRecallTwoSteps and bench/README.md §f what changes of
// a given size are found at how many runs a side.

// Defaults of the change-point search.
const (
	// DefaultAlpha bounds the Bonferroni-corrected p-value of a split. 0.01 keeps the false-positive rate per
	// series under 1 % before the smallest-change filter, which removes most of the rest.
	DefaultAlpha = 0.01
	// DefaultMinSegment is the runs on each side of a change: fewer cannot tell a step from an outlier.
	DefaultMinSegment = 3
)

// The short-history rule and the clipping threshold; the doc comment above says why and what they cost.
const (
	// ShortRuns: a series of fewer runs is short, and a split there that steps by MinChange is kept at
	// ShortAlphaFactor × α.
	ShortRuns        = 16
	ShortAlphaFactor = 10
	// clipMinRuns is the shortest series clipOutliers clips.
	clipMinRuns = 12
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

// keeps says whether a split of a series of n runs with corrected p-value p holds: p ≤ α, or in a short series
// p ≤ ShortAlphaFactor × α with a step (computed only then) of at least MinChange (MinChange > 0).
func (o SearchOptions) keeps(p float64, n int, step func() float64) bool {
	if p <= o.Alpha {
		return true
	}
	if n >= ShortRuns || o.MinChange <= 0 || p > ShortAlphaFactor*o.Alpha {
		return false
	}
	return math.Abs(step()) >= o.MinChange-1e-12
}

// ChangePoint is a position where the level of a series changes: xs[Index] is the first value after it.
type ChangePoint struct {
	Index int
	// P is the two-sided p-value of Student's t-test between the logarithms of the neighbouring segments,
	// multiplied by the number of split positions that segment offered (Bonferroni), at most 1. In a series of
	// fewer than 16 runs a change with a step of at least MinChange is kept up to 10 × Alpha.
	P float64
	// T is the t statistic (positive: the level rose).
	T float64
	// Step is the Hodges–Lehmann shift between the neighbouring segments as a ratio − 1: exp of the median of
	// log(after) − log(before) over every pair of a value after and a value before (busy nights clipped).
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
	logs := centredLogs(xs)
	z := clipOutliers(logs)
	cuts := segmentation(z, logs, o)
	var steps []float64
	for {
		refine(z, cuts, o.MinSegment)
		var weakest int
		weakest, steps = weakestFailing(z, cuts, o)
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
		out[i] = ChangePoint{Index: c, P: p, T: t, Step: steps[i]}
	}
	return out
}

// weakestFailing returns the change point to drop next, or −1 when every one holds: first the one with the
// smallest step below MinChange, else the one whose test between its neighbours no longer holds (keeps) with
// the largest p. It returns the step of every change point too.
func weakestFailing(z []float64, cuts []int, o SearchOptions) (int, []float64) {
	bounds := withEnds(cuts, len(z))
	weakest, weakestStep, worstP := -1, math.Inf(1), -1.0
	smallFound := false
	steps := make([]float64, len(cuts))
	for i, c := range cuts {
		lo, hi := bounds[i], bounds[i+2]
		st := step(z, lo, c, hi)
		steps[i] = st
		if s := math.Abs(st); s < o.MinChange-1e-12 {
			if s < weakestStep {
				weakest, weakestStep, smallFound = i, s, true
			}
			continue
		}
		if smallFound {
			continue
		}
		if _, p := splitTest(z[lo:hi], c-lo, o.MinSegment); !o.keeps(p, len(z), func() float64 { return st }) && p > worstP {
			weakest, worstP = i, p
		}
	}
	return weakest, steps
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
	return pooledT(sum[n]-sum[k], sq[n]-sq[k], float64(n-k), sum[k], sq[k], float64(k))
}

// pooledT is Student's pooled-variance t statistic of a sample against b, each given by its sum, sum of squares
// and size: the mean of a minus the mean of b over the pooled standard error. Two constant samples at different
// levels give ±Inf, at one level 0.
func pooledT(sumA, sqA, nA, sumB, sqB, nB float64) float64 {
	ssA, ssB := sqA-sumA*sumA/nA, sqB-sumB*sumB/nB
	diff := sumA/nA - sumB/nB
	s2 := math.Max(ssA+ssB, 0) / (nA + nB - 2)
	if s2 <= 1e-24 {
		switch {
		case math.Abs(diff) <= 1e-12:
			return 0
		case diff > 0:
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	return diff / math.Sqrt(s2*(1/nA+1/nB))
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
