package precision

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Confidence is the coverage of the interval the rule asks for.
const Confidence = 0.95

// MinN is the fewest repeats with a 95 % interval of the median: with 5, the widest interval, [x(1), x(5)],
// covers it with probability 1 − 2/2⁵ = 93.75 %.
const MinN = 6

// DefaultMaxRepeat is the cap on repeats of one point when none is given (--max-repeat).
const DefaultMaxRepeat = 20

// MaxMaxRepeat bounds --max-repeat, like the profile's repeats.
const MaxMaxRepeat = 1000

// Ranks returns the 1-based ranks j < k of the order statistics whose interval [x(j), x(k)] covers the median
// of n repeats with probability at least Confidence, as narrow as that allows (k = n+1−j, j largest); ok is
// false when n < MinN, where no such pair exists.
func Ranks(n int) (j, k int, ok bool) {
	if n < MinN {
		return 0, 0, false
	}
	j = 1
	for j+1 <= n/2 && Coverage(n, j+1) >= Confidence {
		j++
	}
	return j, n + 1 - j, true
}

// Coverage is P(j ≤ B ≤ n−j) for B ~ Binomial(n, ½): the probability that [x(j), x(n+1−j)] covers the
// median of n repeats. The binomial coefficients are built one from the last and kept in range by a power of
// two carried aside, so any n is exact to float64 rounding without Exp or Lgamma (the agent links this and has
// a size budget).
func Coverage(n, j int) float64 {
	if j < 1 || 2*j > n+1 {
		return 0
	}
	term, tail, scale := 1.0, 0.0, 0 // C(n, i) and the sum of C(n, 0…i−1), both times 2^−scale
	for i := 0; i < j; i++ {
		tail += term
		term = term * float64(n-i) / float64(i+1)
		if term > 0x1p500 {
			term, tail, scale = term*0x1p-500, tail*0x1p-500, scale+500
		}
	}
	return 1 - 2*math.Ldexp(tail, scale-n)
}

// Interval is the median of a sample and the 95 % confidence interval of it.
type Interval struct {
	Median float64
	Lo, Hi float64 // x(j) and x(k); equal to the median when N < MinN
	N      int
	OK     bool // N ≥ MinN: the interval exists
}

// MedianCI returns the median of sorted (ascending) values and its 95 % interval.
func MedianCI(sorted []float64) Interval {
	n := len(sorted)
	if n == 0 {
		return Interval{}
	}
	med := sorted[n/2]
	if n%2 == 0 {
		med = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	iv := Interval{Median: med, Lo: med, Hi: med, N: n}
	if j, k, ok := Ranks(n); ok {
		iv.Lo, iv.Hi, iv.OK = sorted[j-1], sorted[k-1], true
	}
	return iv
}

// HalfPct is the interval's larger distance from the median, in percent of the median (0.8 for ±0.8 %);
// +Inf when there is no interval or the median is not positive.
func (iv Interval) HalfPct() float64 {
	if !iv.OK || !(iv.Median > 0) {
		return math.Inf(1)
	}
	return 100 * math.Max(iv.Median-iv.Lo, iv.Hi-iv.Median) / iv.Median
}

// Reached reports whether the interval is within ±target % of the median.
func (iv Interval) Reached(targetPct float64) bool { return iv.HalfPct() <= targetPct }

// Check refuses a target that is not a percentage strictly between 0 and 100.
func Check(pct float64) error {
	if math.IsNaN(pct) || pct <= 0 || pct >= 100 {
		return fmt.Errorf("precision %v %% is out of range (expected a percentage above 0 and below 100, such as 2 or 0.5%%)", pct)
	}
	return nil
}

// Parse reads a target such as "2", "2%", "0.5 %" and checks it.
func Parse(s string) (float64, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("precision %q is not a percentage (expected such as 2 or 0.5%%)", s)
	}
	if err := Check(v); err != nil {
		return 0, err
	}
	return v, nil
}

// CheckMaxRepeat refuses a cap under which a target can never be reached, or above MaxMaxRepeat.
func CheckMaxRepeat(n int64) error {
	if n < MinN || n > MaxMaxRepeat {
		return fmt.Errorf("max repeat %d is out of range (expected %d to %d: fewer than %d repeats have no 95 %% interval of the median)",
			n, MinN, MaxMaxRepeat, MinN)
	}
	return nil
}
