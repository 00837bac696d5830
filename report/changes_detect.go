package report

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Change-point detection: E-Divisive means (Matteson & James 2014, "A nonparametric approach for multiple change
// point analysis of multivariate data"), as MongoDB's performance CI runs it (signal-processing-algorithms,
// Daly et al. 2020). We chose it over Otava's variant (split by t-test inside sliding windows, keep weak points,
// then merge) because:
//
//   - it is nonparametric: throughput is skewed and heavy-tailed (a busy night is slow, never fast), and the
//     energy distance compares whole distributions without assuming normal noise or equal variances;
//   - its only tuning is the significance of a permutation test, which has a plain meaning (the false-positive
//     rate per series, measured in TestChangesFalsePositiveRate) instead of window sizes that decide which steps
//     can be seen;
//   - in one dimension with α = 1 the statistic of every split point of a segment is a running sum that a Fenwick
//     tree over ranks updates in O(log n), so one scan costs O(n log n) and the permutation test stays cheap
//     (see BenchmarkChanges: 200 nights × 1,000 series).
//
// Otava's useful idea is kept after detection: change points whose step is smaller than the smallest change worth
// reporting are dropped weakest first and their neighbours merged (mergeWeakChanges), so a slow drift is reported
// as the few steps that matter rather than as many tiny ones.
//
// The statistic of splitting a segment z[0:n) at τ (left X = z[0:τ), right Y = z[τ:n), m = τ, k = n − τ) is
//
//	Q(τ) = m·k/n · ( 2/(m·k)·Σ|Xi − Yj| − Σ_{i<j}|Xi − Xj| / C(m,2) − Σ_{i<j}|Yi − Yj| / C(k,2) )
//
// (the right segment always runs to the segment's end, as in MongoDB's implementation). The best split of the
// segment with the largest Q is tested by permuting the values within every current segment and recomputing the
// largest Q: p = (1 + #permutations with Q ≥ observed) / (1 + permutations). Below α the split is kept and the
// search recurses; otherwise it stops. Finally each change point is re-placed at the best split between its
// neighbours (refine). The permutations come from a PCG generator seeded per series, so results do
// not depend on the order or the number of goroutines.

// Defaults of the change-point search.
const (
	DefaultChangeAlpha        = 0.01 // significance of the permutation test, as MongoDB's CI uses
	DefaultChangePermutations = 99   // smallest p is 1/100 = α: a change no permutation matched; MongoDB uses 100
	DefaultMinSegment         = 3    // nights on each side of a change: fewer cannot tell a step from an outlier
)

// DetectOptions tune EDivisive. Zero fields take the defaults above.
type DetectOptions struct {
	Alpha        float64
	Permutations int
	MinSegment   int
	Seed         uint64
}

func (o DetectOptions) withDefaults() DetectOptions {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = DefaultChangeAlpha
	}
	if o.Permutations <= 0 {
		o.Permutations = DefaultChangePermutations
	}
	if o.MinSegment < 2 {
		o.MinSegment = DefaultMinSegment
	}
	return o
}

// ChangePoint is a position where the series' distribution changes: xs[Index] is the first value after it.
type ChangePoint struct {
	Index int
	P     float64 // permutation p-value when the change point was accepted
	Q     float64 // the E-Divisive statistic of the split
}

// EDivisive finds the change points of xs, ordered by index. It is deterministic for a given seed. Values must be
// finite; the scale does not matter (the statistic is computed on xs divided by their median absolute value).
func EDivisive(xs []float64, opts DetectOptions) []ChangePoint {
	opts = opts.withDefaults()
	n := len(xs)
	if n < 2*opts.MinSegment {
		return nil
	}
	z := normalize(xs)
	d := &detector{opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15)), fw: newFenwick(n),
		a: make([]float64, n+1), b: make([]float64, n+1), after: make([]float64, n), vals: make([]float64, n),
		ranks: make([]int, n), rows: make([]float64, n)}
	segs := []*segment{d.newSegment(z, 0, n)}
	var out []ChangePoint
	for {
		best := -1
		for i, s := range segs {
			if s.tau > 0 && (best < 0 || s.q > segs[best].q) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		p := d.permutationP(segs, segs[best].q)
		if p > opts.Alpha {
			break
		}
		s := segs[best]
		out = append(out, ChangePoint{Index: s.lo + s.tau, P: p, Q: s.q})
		left, right := d.newSegment(z, s.lo, s.lo+s.tau), d.newSegment(z, s.lo+s.tau, s.hi)
		segs = append(segs[:best], append([]*segment{left, right}, segs[best+1:]...)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	d.refine(z, out)
	return out
}

// refine moves each change point to the best split between its neighbours. A change point found early was placed
// against a right side that ran to the end of its segment, through later changes; between its final neighbours
// the two sides are single levels and the split is sharper (a night between two levels no longer pulls it
// along). A few passes settle it; the p-values stay those of the search.
func (d *detector) refine(z []float64, cps []ChangePoint) {
	for range 3 {
		moved := false
		for i := range cps {
			lo, hi := 0, len(z)
			if i > 0 {
				lo = cps[i-1].Index
			}
			if i+1 < len(cps) {
				hi = cps[i+1].Index
			}
			seg := z[lo:hi]
			ranks := ranksOf(seg)
			if tau, q := d.bestSplit(seg, ranks, rowSums(seg, ranks)); tau > 0 && lo+tau != cps[i].Index {
				cps[i].Index, cps[i].Q, moved = lo+tau, q, true
			}
		}
		if !moved {
			return
		}
	}
}

// normalize divides by the median absolute value, so sums of distances stay near the number of pairs whatever
// the unit (bytes/s reach 1e9).
func normalize(xs []float64) []float64 {
	abs := make([]float64, len(xs))
	for i, x := range xs {
		abs[i] = math.Abs(x)
	}
	sort.Float64s(abs)
	scale := median(abs)
	if scale == 0 || math.IsNaN(scale) {
		scale = 1
	}
	z := make([]float64, len(xs))
	for i, x := range xs {
		z[i] = x / scale
	}
	return z
}

// segment is z[lo:hi) with the ranks of its values within it and its best split (tau relative to lo; 0: none).
type segment struct {
	lo, hi int
	vals   []float64
	ranks  []int
	rows   []float64 // rowSums
	tau    int
	q      float64
}

type detector struct {
	opts  DetectOptions
	rng   *rand.Rand
	fw    *fenwick
	a, b  []float64 // within-left and within-right sums per split
	after []float64 // each value's distance sum to the values after it
	vals  []float64 // scratch for permutations
	ranks []int
	rows  []float64
}

func (d *detector) newSegment(z []float64, lo, hi int) *segment {
	s := &segment{lo: lo, hi: hi, vals: z[lo:hi], ranks: ranksOf(z[lo:hi])}
	s.rows = rowSums(s.vals, s.ranks)
	s.tau, s.q = d.bestSplit(s.vals, s.ranks, s.rows)
	return s
}

// ranksOf gives each value its position in ascending order (ties broken by index: equal values are at distance 0
// either way).
func ranksOf(vs []float64) []int {
	idx := make([]int, len(vs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return vs[idx[i]] < vs[idx[j]] })
	r := make([]int, len(vs))
	for rank, i := range idx {
		r[i] = rank
	}
	return r
}

// rowSums gives each value its distance sum to all values of the segment: Σj |vi − vj|. Permuting the segment
// permutes these with the values, so they are computed once per segment from the sorted values.
func rowSums(vals []float64, ranks []int) []float64 {
	n := len(vals)
	sorted := make([]float64, n)
	for i, r := range ranks {
		sorted[r] = vals[i]
	}
	prefix := make([]float64, n+1) // prefix[r]: sum of the r smallest
	for r, v := range sorted {
		prefix[r+1] = prefix[r] + v
	}
	out := make([]float64, n)
	for i, v := range vals {
		r := ranks[i]
		out[i] = v*float64(r) - prefix[r] + (prefix[n] - prefix[r+1]) - v*float64(n-r-1)
	}
	return out
}

// bestSplit returns the split τ in [MinSegment, n−MinSegment] with the largest Q, or 0 when the segment is too
// short to split. One pass over a Fenwick tree gives each value's distance sum to the values before it; its row
// sum minus that is the sum to the values after it.
func (d *detector) bestSplit(vals []float64, ranks []int, rows []float64) (int, float64) {
	n, ms := len(vals), d.opts.MinSegment
	if n < 2*ms {
		return 0, 0
	}
	a, b, after := d.a[:n+1], d.b[:n+1], d.after[:n]
	d.fw.reset(n)
	a[0] = 0
	for t := 0; t < n; t++ {
		before := d.fw.distanceSum(vals[t], ranks[t])
		a[t+1] = a[t] + before
		after[t] = rows[t] - before
		d.fw.add(ranks[t], vals[t])
	}
	b[n] = 0
	for t := n - 1; t >= 0; t-- {
		b[t] = b[t+1] + after[t]
	}
	total := a[n]
	bestTau, bestQ := 0, math.Inf(-1)
	fn := float64(n)
	for tau := ms; tau <= n-ms; tau++ {
		m, k := float64(tau), float64(n-tau)
		across := total - a[tau] - b[tau]
		e := 2*across/(m*k) - a[tau]/(m*(m-1)/2) - b[tau]/(k*(k-1)/2)
		if q := m * k / fn * e; q > bestQ {
			bestTau, bestQ = tau, q
		}
	}
	return bestTau, bestQ
}

// permutationP is the p-value of the largest statistic observed over segs: the share of permutations (values
// shuffled within each segment) whose largest statistic reaches it. It stops early once p cannot fall below α.
func (d *detector) permutationP(segs []*segment, observed float64) float64 {
	perms := d.opts.Permutations
	limit := d.opts.Alpha * float64(perms+1)
	exceed := 0
	for r := 0; r < perms; r++ {
		top := math.Inf(-1)
		for _, s := range segs {
			n := len(s.vals)
			if n < 2*d.opts.MinSegment {
				continue
			}
			vals, ranks, rows := d.vals[:n], d.ranks[:n], d.rows[:n]
			copy(vals, s.vals)
			copy(ranks, s.ranks)
			copy(rows, s.rows)
			for i := n - 1; i > 0; i-- {
				j := d.rng.IntN(i + 1)
				vals[i], vals[j] = vals[j], vals[i]
				ranks[i], ranks[j] = ranks[j], ranks[i]
				rows[i], rows[j] = rows[j], rows[i]
			}
			if _, q := d.bestSplit(vals, ranks, rows); q > top {
				top = q
			}
		}
		if top >= observed {
			exceed++
			if float64(exceed+1) > limit {
				return float64(exceed+1) / float64(r+2) // not significant; an estimate, never reported
			}
		}
	}
	return float64(exceed+1) / float64(perms+1)
}

// fenwick is a binary indexed tree over ranks holding the count and the sum of the values inserted so far, so
// the sum of distances from a new value to all of them costs O(log n).
type fenwick struct {
	node     []fenwickNode
	n, total int
	totalSum float64
}

type fenwickNode struct {
	cnt int
	sum float64
}

func newFenwick(n int) *fenwick { return &fenwick{node: make([]fenwickNode, n+1)} }

func (f *fenwick) reset(n int) {
	f.n, f.total, f.totalSum = n, 0, 0
	clear(f.node[:n+1])
}

func (f *fenwick) add(rank int, v float64) {
	for i := rank + 1; i <= f.n; i += i & -i {
		f.node[i].cnt++
		f.node[i].sum += v
	}
	f.total++
	f.totalSum += v
}

// distanceSum is Σ|v − x| over the inserted x; rank is v's rank, not inserted yet.
func (f *fenwick) distanceSum(v float64, rank int) float64 {
	c, s := 0, 0.0
	for i := rank; i > 0; i &= i - 1 { // ranks below rank
		c += f.node[i].cnt
		s += f.node[i].sum
	}
	below := v*float64(c) - s
	above := (f.totalSum - s) - v*float64(f.total-c)
	return below + above
}
