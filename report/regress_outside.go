package report

import (
	"fmt"
	"math"

	"github.com/fleetlab/fleet/report/stats"
)

// The range rule judges a run where the U test cannot: one nightly sample against a window of five has a
// smallest p of 2/6, so no outcome reaches α, and a drop of 70 % read "regressed (unconfirmed)" for ever, or
// "unchanged" beside a window that a step had mixed. A run is beyond its baseline when
//
//   - every judged value lies outside the range of the baseline's values, on one side: beyond every one of n
//     exchangeable values happens with probability 1/(n+1) a side, the U test's own bound, not enough alone;
//   - the change of the medians is beyond the threshold, as for every verdict;
//   - Student's prediction test says the judged values do not come from the baseline's: t is the distance of
//     their mean from the baseline's mean, in logarithms (throughput's noise is multiplicative, as the change
//     search assumes), over the baseline's standard deviation × √(1/n + 1/m), with n − 1 degrees of freedom,
//     and its two-sided p is below α. The t quantile is the spread factor that the baseline's size earns: 4.3
//     standard deviations for 3 values, 2.4 for 10 (at α = 0.05 and one judged value).
//
// Why not the MAD: of 3–10 values it is no steady scale (two close values make it near 0), and a rule of
// "k robust spreads beyond the range" called 4 % of histories without a step (3 baseline runs of 5 % noise)
// regressed whatever k; the prediction test's t quantile pays for the small sample. The standard deviation is
// not robust, which here errs on the safe side: an odd night in the baseline widens it and its range, so the
// rule is harder to meet, never easier. On simulated nightlies (normal noise σ of 2–10 %, a step of 5 σ, a
// baseline of 7 runs, 400 histories each) the first three nights after the step read regressed in 96–99.5 %
// (TestRangeRuleRecall); a step at the threshold itself (σ 1 %) in half of them, as it must.
//
// It needs rangeMinBase baseline values: of one or two the spread says nothing.
const rangeMinBase = 3

// beyondRange says whether the judged values cur lie beyond the baseline's values base by the range rule at
// level alpha: −1 below, +1 above, 0 neither (or fewer than rangeMinBase baseline values, or a value that is
// not positive). p is the prediction test's two-sided p-value (1 when not tested).
func beyondRange(base, cur []float64, threshold, alpha float64) (side int, p float64) {
	if len(base) < rangeMinBase || len(cur) == 0 {
		return 0, 1
	}
	b, c := stats.Sorted(base), stats.Sorted(cur)
	if !(b[0] > 0) || !(c[0] > 0) {
		return 0, 1
	}
	switch change := stats.Median(c)/stats.Median(b) - 1; {
	case c[len(c)-1] < b[0] && change < -threshold:
		side = -1
	case c[0] > b[len(b)-1] && change > threshold:
		side = 1
	default:
		return 0, 1
	}
	mb, sb := logMeanSD(b)
	mc, _ := logMeanSD(c)
	t := (mc - mb) / (sb * math.Sqrt(1/float64(len(b))+1/float64(len(c))))
	if p = stats.StudentTwoSidedP(t, float64(len(b)-1)); p >= alpha {
		return 0, p
	}
	return side, p
}

// logMeanSD is the mean and the sample standard deviation of the logarithms of xs (0 for one value).
func logMeanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += math.Log(x)
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		d := math.Log(x) - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// rangeNote says why a row too small for the U test got a verdict anyway.
func rangeNote(side, nb, nc int, alpha float64) string {
	where := "below every"
	if side > 0 {
		where = "above every"
	}
	return fmt.Sprintf("judged by range: %s baseline sample, and p < %g in Student's prediction test (no outcome of "+
		"n=%d+%d reaches α in the U test)", where, alpha, nb, nc)
}
