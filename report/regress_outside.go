package report

import (
	"fmt"
	"math"

	"github.com/fleetlab/fleet/report/stats"
)

// The range rule judges a run where the U test cannot: one nightly sample against a window of five has a
// smallest p of 2/6, so no outcome reaches α and a drop of 70 % would read "unconfirmed" for ever. A night
// outside everything the baseline measured, by more than the threshold and more than rangeSpreads × the
// baseline's robust spread, is a change whatever the U test could say:
//
//   - outside the range: a value beyond every one of n exchangeable values happens with probability 1/(n+1) on
//     a side, which is the U test's own bound and not enough alone;
//   - by more than the threshold (a share of the baseline's median, from the nearest edge of its range): the
//     change is one worth a verdict even against the baseline's worst night, so a baseline whose values
//     happen to agree closely (a MAD near 0) cannot make a small step count;
//   - by more than rangeSpreads × 1.4826 × MAD (the normal σ a median absolute deviation estimates, moved by
//     neither one odd night nor two): the gap is wide beside the baseline's noise. From the edge of the range,
//     which lies about 1–1.5 σ from the median for 3–10 values, 2 spreads put the value 3–3.5 σ from the
//     median (under 0.1 % of nights without a change) and keep a step of 5 × the noise: its nights lie 3.5–4 σ
//     beyond the edge.
//
// It needs rangeMinBase baseline values: of one or two the range and the MAD say nothing.
const (
	rangeSpreads = 2
	rangeMinBase = 3
)

// madSigma is the factor that makes a median absolute deviation estimate the σ of normal noise.
const madSigma = 1.4826

// beyondRange says whether every value of cur lies outside the range of base, on one side, by more than the
// threshold × median(base) and rangeSpreads × the robust spread of base: −1 below, +1 above, 0 neither (or
// fewer than rangeMinBase baseline values). The margin is returned with it, as a share of the median.
func beyondRange(base, cur []float64, threshold float64) (side int, margin float64) {
	if len(base) < rangeMinBase || len(cur) == 0 {
		return 0, 0
	}
	b, c := stats.Sorted(base), stats.Sorted(cur)
	m := stats.Median(b)
	if !(m > 0) {
		return 0, 0
	}
	dev := make([]float64, len(b))
	for i, v := range b {
		dev[i] = math.Abs(v - m)
	}
	need := max(threshold, rangeSpreads*madSigma*stats.Median(stats.Sorted(dev))/m)
	if gap := (b[0] - c[len(c)-1]) / m; gap > need {
		return -1, gap
	}
	if gap := (c[0] - b[len(b)-1]) / m; gap > need {
		return 1, gap
	}
	return 0, 0
}

// rangeNote says why a row too small for the U test got a verdict anyway.
func rangeNote(side int, margin float64, nb, nc int, threshold float64) string {
	where := "below its lowest"
	if side > 0 {
		where = "above its highest"
	}
	return fmt.Sprintf("judged by range: %s of the baseline's median %s value, beyond the %s threshold and %d × its robust "+
		"spread (no outcome of n=%d+%d reaches α in the U test)", formatPct(margin), where, formatPct(threshold), rangeSpreads, nb, nc)
}
