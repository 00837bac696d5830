package stats

import (
	"math"
	"sort"
)

// The Mann-Whitney U test below reproduces golang.org/x/perf/benchmath.AssumeNothing.Compare (which calls
// github.com/aclements/go-moremath/stats.MannWhitneyUTest with LocationDiffers) value for value: the exact
// distribution of U given the tie pattern for small samples, the normal approximation with tie and continuity
// correction beyond the same limits. The module graph of fleet does not carry go-moremath, so the test lives here;
// utest_test.go pins its p-values against numbers produced by benchmath itself. Two deliberate differences in
// degenerate cases: p is capped at 1, and an empty tail never yields p = 0 (see UTest).

const (
	uExactLimit     = 50 // go-moremath MannWhitneyExactLimit
	uTiesExactLimit = 25 // go-moremath MannWhitneyTiesExactLimit
)

// UTest returns the two-sided p-value of the Mann-Whitney U test of x1 against x2. Like benchmath, it reports
// p = 1 when the test cannot be done (an empty sample, or every value equal).
func UTest(x1, x2 []float64) float64 {
	n1, n2 := len(x1), len(x2)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	type labelled struct {
		v     float64
		first bool
	}
	merged := make([]labelled, 0, n1+n2)
	for _, v := range x1 {
		merged = append(merged, labelled{v, true})
	}
	for _, v := range x2 {
		merged = append(merged, labelled{v, false})
	}
	sort.SliceStable(merged, func(i, j int) bool { return merged[i].v < merged[j].v })

	// Rank sum of the first sample with mid-ranks for ties; ties[k] is the size of the k-th group of equal values.
	var r1 float64
	var ties []int
	hasTies := false
	for i := 0; i < len(merged); {
		start, in1 := i, 0
		for ; i < len(merged) && merged[i].v == merged[start].v; i++ {
			if merged[i].first {
				in1++
			}
		}
		r1 += float64(start+1+i) / 2 * float64(in1)
		ties = append(ties, i-start)
		if i-start > 1 {
			hasTies = true
		}
	}
	u1 := r1 - float64(n1*(n1+1))/2
	u2 := float64(n1*n2) - u1
	uSmall := math.Min(u1, u2)

	if !hasTies && n1 <= uExactLimit && n2 <= uExactLimit || hasTies && n1 <= uTiesExactLimit && n2 <= uTiesExactLimit {
		if len(ties) == 1 {
			return 1 // all values equal
		}
		if u1 == u2 {
			return 1
		}
		p := 2 * uExactCDF(n1, ties, uSmall)
		if p == 0 {
			// With ties the conditional distribution of U1 is not symmetric, and go-moremath's smaller-U tail can
			// be empty for an outcome that was observed (n1 = 1 against a tied pair). Use the tail at U1 instead
			// of reporting an impossible p = 0.
			lo := uExactCDF(n1, ties, u1)
			hi := 1 - uExactCDF(n1, ties, u1-0.5)
			p = 2 * math.Min(lo, hi)
		}
		return math.Min(p, 1)
	}

	var t float64
	for _, k := range ties {
		t += float64(k*k*k - k)
	}
	n := float64(n1 + n2)
	mu := float64(n1*n2) / 2
	sigma := math.Sqrt(float64(n1*n2) * ((n + 1) - t/(n*(n-1))) / 12)
	if sigma == 0 {
		return 1
	}
	numer := u1 - mu
	switch {
	case numer > 0:
		numer -= 0.5
	case numer < 0:
		numer += 0.5
	}
	z := numer / sigma
	cdf := 0.5 * math.Erfc(-z/math.Sqrt2)
	return 2 * math.Min(cdf, 1-cdf)
}

// uExactCDF is P(U1 <= u) under the null hypothesis, conditioned on the tie groups (in ascending order of value),
// where U1 is the U statistic of a first sample of size n1. It counts the ways to draw n1 of the pooled values
// group by group, tracking twice the rank sum so that mid-ranks stay integral.
func uExactCDF(n1 int, ties []int, u float64) float64 {
	total := 0
	for _, t := range ties {
		total += t
	}
	// 2*R1 = 2*U1 + n1(n1+1); only rank sums up to that bound matter.
	maxTwoR := min(int(math.Floor(2*u))+n1*(n1+1), total*(total+1))
	if maxTwoR < 0 {
		return 0
	}
	// ways[j][s]: ways to pick j values from the groups seen so far with twice their rank sum equal to s.
	ways := make([][]float64, n1+1)
	for j := range ways {
		ways[j] = make([]float64, maxTwoR+1)
	}
	ways[0][0] = 1
	seen := 0
	for _, t := range ties {
		twoMid := 2*seen + t + 1 // twice the mid-rank of this group
		for j := min(n1, seen+t); j >= 0; j-- {
			row := ways[j]
			for s := maxTwoR; s >= 0; s-- {
				var sum float64
				for r := 0; r <= t && r <= j; r++ {
					prev := s - r*twoMid
					if prev < 0 {
						break
					}
					if w := ways[j-r][prev]; w != 0 {
						sum += choose(t, r) * w
					}
				}
				row[s] = sum
			}
		}
		seen += t
	}
	var p float64
	for s := 0; s <= maxTwoR; s++ {
		p += ways[n1][s]
	}
	return p / choose(total, n1)
}

// choose is the binomial coefficient as a float64.
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	if k > n-k {
		k = n - k
	}
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return math.Round(c)
}

// MinP is the smallest two-sided p-value UTest can give samples of n1 and n2 values: its p for two samples of
// distinct values that do not overlap (2 / C(n1+n2, n1) where the exact distribution is used; the normal
// approximation beyond its limits gives more). Ties only raise it. 1 when a sample is empty.
func MinP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	x1, x2 := make([]float64, n1), make([]float64, n2)
	for i := range x1 {
		x1[i] = float64(i)
	}
	for i := range x2 {
		x2[i] = float64(n1 + i)
	}
	return UTest(x1, x2)
}
