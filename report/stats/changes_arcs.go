package stats

import (
	"math"
	"slices"
)

// The segmentation step of the change search: circular binary segmentation (Olshen et al., "Circular binary
// segmentation for the analysis of array-based DNA copy number data", Biostatistics 2004). Plain binary
// segmentation splits a segment in two, and at either edge of a pulse (down for six nights, then back) it
// compares one level with a mixture of both, whose spread hides the step: a −84 % pulse of six nights in twenty
// quiet ones was never found. Each segment is therefore also offered every arc [i, j) — the runs inside against
// the runs on both sides pooled — and when the best arc's p-value, corrected by the number of arcs tried, is
// smaller than the best split's, corrected by the splits tried, both of its edges are cut at once. An arc that
// touches an end of its segment is a split, so the arcs tried leave MinSegment runs on each side.

// maxArcWidth bounds the runs inside an arc, which keeps the scan at O(n · maxArcWidth) per segment instead of
// O(n²): 1,000 runs (fleet changes' default --max-runs) cost 0.1 M arcs, not 0.5 M. A wider pulse has more than
// maxArcWidth runs at its level, and the split at its edge beside the longer outside part has at least half the
// step in its mean up to about 3 × maxArcWidth runs, and at 1,000 runs still a fifth of it over more than 400
// runs a side: t ≈ 7 for a pulse of 3 × the noise. TestChangePointsWidePulse finds 200 runs at 5× in 1,000.
const maxArcWidth = 128

// cut is the best way to cut one segment z[lo:hi] that the segmentation found: at one split or around one arc.
type cut struct {
	lo, hi int
	at     []int   // the cuts, absolute: one for a split, two for an arc; none when the segment is too short
	p      float64 // corrected p-value
}

// bestCut is the better of the best split and the best arc of z[lo:hi], by corrected p (the split on a tie).
// The arc competes only when it holds at α itself (the short-history rule, keeps, is for a split) and is a level
// of its own in the logarithms before clipping, logs.
func bestCut(z, logs []float64, lo, hi int, o SearchOptions) cut {
	c := cut{lo: lo, hi: hi, p: math.Inf(1)}
	seg := z[lo:hi]
	if tau, _, p := bestSplit(seg, o.MinSegment); tau > 0 {
		c.at, c.p = []int{lo + tau}, p
	}
	if i, j, _, p := bestArc(seg, o.MinSegment); j > 0 && p <= o.Alpha && p < c.p && isLevel(logs[lo:hi], i, j) {
		c.at, c.p = []int{lo + i, lo + j}, p
	}
	return c
}

// step is the Hodges–Lehmann shift the cut makes: after against before for a split, the arc against the runs
// outside it for an arc.
func (c cut) step(z []float64) float64 {
	if len(c.at) == 1 {
		return step(z, c.lo, c.at[0], c.hi)
	}
	i, j := c.at[0], c.at[1]
	outside := append(slices.Clone(z[c.lo:i]), z[j:c.hi]...)
	return shift(z[i:j], outside)
}

// segmentation cuts z (logs clipped) by circular binary segmentation: each round, the segment whose best cut has the smallest
// corrected p-value is cut, while that cut holds (o.keeps). Each segment's best cut is computed once, when the
// segment appears; the segments stay in order, so a tie goes to the leftmost, as the search always did.
func segmentation(z, logs []float64, o SearchOptions) []int {
	n := len(z)
	var cuts []int
	pending := []cut{bestCut(z, logs, 0, n, o)}
	for {
		best := -1
		for k, c := range pending {
			if len(c.at) > 0 && (best < 0 || c.p < pending[best].p) {
				best = k
			}
		}
		if best < 0 {
			return cuts
		}
		c := pending[best]
		if !o.keeps(c.p, n, func() float64 { return c.step(z) }) {
			return cuts
		}
		bounds := append(append([]int{c.lo}, c.at...), c.hi)
		next := make([]cut, 0, len(bounds)-1)
		for k := 0; k+1 < len(bounds); k++ {
			next = append(next, bestCut(z, logs, bounds[k], bounds[k+1], o))
		}
		pending = slices.Replace(pending, best, best+1, next...)
		for _, at := range c.at {
			cuts = insertSorted(cuts, at)
		}
	}
}

// bestArc returns the arc [i, j) of seg with the largest |t| of seg[i:j] against the rest pooled, leaving
// minSeg runs on each side and at most maxArcWidth inside, its t (positive: the arc is above the rest) and its
// p-value corrected by the arcs tried; j is 0 when seg offers no arc.
//
// For a fixed segment, |t| grows with the between-groups sum of squares B = w·r/n·(mean inside − mean outside)²
// (t² = (n−2)·B / (total − B)), and n·w·r·B = (S_inside·n − S·w)², so the scan needs one multiply-add and one
// division by a per-width constant per arc.
func bestArc(seg []float64, minSeg int) (i, j int, t, p float64) {
	n := len(seg)
	if n < 3*minSeg {
		return 0, 0, 0, 1
	}
	sum, sq := prefixSums(seg)
	total, fn := sum[n], float64(n)
	inv := make([]float64, n) // inv[w] = 1 / (w · (n − w))
	for w := minSeg; w < n; w++ {
		inv[w] = 1 / (float64(w) * float64(n-w))
	}
	best, arcs := -1.0, 0
	for a := minSeg; a+2*minSeg <= n; a++ {
		hiB := min(n-minSeg, a+maxArcWidth)
		for b := a + minSeg; b <= hiB; b++ {
			d := (sum[b]-sum[a])*fn - total*float64(b-a)
			if s := d * d * inv[b-a]; s > best {
				i, j, best = a, b, s
			}
		}
		arcs += hiB - a - minSeg + 1
	}
	t = tArc(sum, sq, i, j, n)
	return i, j, t, math.Min(1, StudentTwoSidedP(t, float64(n-2))*float64(arcs))
}

// tArc is Student's pooled-variance t statistic of seg[i:j] against seg[:i] and seg[j:] pooled, from prefix
// sums, with tAt's conventions for constant sides.
func tArc(sum, sq []float64, i, j, n int) float64 {
	si, qi := sum[j]-sum[i], sq[j]-sq[i]
	return pooledT(si, qi, float64(j-i), sum[n]-si, sq[n]-qi, float64(n-(j-i)))
}

// isLevel says whether the arc seg[i:j] is a level of its own: at most a quarter of its runs (none of 3) lie
// nearer the mean outside it than the arc's own mean. Busy nights are not normal noise: two of three nights
// 20–50 % slow give an arc a mean far from the rest with the night between them at the rest's level, which the
// t-test cannot tell from a pulse. It is judged before clipping, which pulls both busy nights to 3 robust σ of
// the running median and so, in 2 % noise, close enough to the night between them to pass; a pulse of 3 runs or
// more is not clipped, and a run of a true pulse of 5σ lies past half its depth with probability Φ(−2.5) ≈ 0.6 %.
func isLevel(seg []float64, i, j int) bool {
	var in, out float64
	for k, v := range seg {
		if k >= i && k < j {
			in += v
		} else {
			out += v
		}
	}
	in /= float64(j - i)
	out /= float64(len(seg) - (j - i))
	mid, astray := (in+out)/2, 0
	for _, v := range seg[i:j] {
		if (in < out) == (v > mid) {
			astray++
		}
	}
	return astray <= (j-i)/4
}
