package stats

import "math"

// The robust pieces of the change search: busy nights clipped to the running median, the median absolute
// deviation, and the Hodges–Lehmann step by selection.

// clipOutliers pulls every value to within clipSigmas robust standard deviations of the running median of the
// five values around it (the window shifted inside the series at its ends). A running median of five keeps a
// step with three values on each side where it is and removes any burst of one or two odd values, so busy
// nights stop inflating the t-test's variance (hiding a real step) or moving a segment's mean (making a false
// one), while ordinary noise, almost never that far out, is left alone and stays independent. The robust
// deviation is the MAD of the run-to-run differences scaled to σ (× 1.4826 / √2). A series of fewer than
// clipMinRuns values is returned as it is (the doc comment of the search says why).
func clipOutliers(z []float64) []float64 {
	n := len(z)
	if n < clipMinRuns {
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

// step is the Hodges–Lehmann shift of the logarithms z[c:hi] against z[lo:c], as a ratio − 1.
func step(z []float64, lo, c, hi int) float64 {
	return shift(z[c:hi], z[lo:c])
}

// shift is the Hodges–Lehmann shift of the logarithms after against before, as a ratio − 1.
func shift(after, before []float64) float64 {
	d := make([]float64, 0, len(after)*len(before))
	for _, a := range after {
		for _, b := range before {
			d = append(d, a-b)
		}
	}
	return math.Expm1(medianInPlace(d))
}

// medianInPlace is the median of d, reordering d: a selection, not a sort, since a split of 200 runs in the
// middle has 10,000 pairs.
func medianInPlace(d []float64) float64 {
	n := len(d)
	m := selectKth(d, n/2)
	if n%2 == 1 {
		return m
	}
	// selectKth left d[:n/2] ≤ m: the other middle value is their largest.
	below := d[0]
	for _, v := range d[1 : n/2] {
		below = math.Max(below, v)
	}
	return (below + m) / 2
}

// selectKth reorders d so that d[k] is its k-th smallest value (from 0), d[:k] ≤ d[k] ≤ d[k+1:], and
// returns it: Hoare's selection with the median of three as pivot.
func selectKth(d []float64, k int) float64 {
	lo, hi := 0, len(d)-1
	for lo < hi {
		a, b, c := d[lo], d[(lo+hi)/2], d[hi]
		p := math.Max(math.Min(a, b), math.Min(math.Max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for d[i] < p {
				i++
			}
			for d[j] > p {
				j--
			}
			if i <= j {
				d[i], d[j] = d[j], d[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return d[k]
		}
	}
	return d[k]
}
