package report

import (
	"fmt"
	"sort"

	"github.com/fleetlab/fleet/protocol"
)

// Speedups and crossovers in a comparison: each accelerated mode's ratio of medians over its board's CPU paths
// (cpu and soft, on the same cluster) per row, the geometric mean of each such column, and the crossover block
// size from which it beats cpu at that and every larger size. They are derived from the laid-out cells alone,
// after Compare has placed them, so that every layout and front end shows the same ratios; compare_energy.go is
// their µJ/B counterpart.

// SpeedupColumn is an accelerated mode on a board measured against one of its CPU paths (cpu or soft).
type SpeedupColumn struct {
	Board   string `json:"board"`
	Mode    string `json:"mode"`
	Over    string `json:"over"`
	Cluster string `json:"cluster,omitempty"` // both paths pinned to this cluster
}

// Name is the column heading: "am64x devcrypto/cpu", "rk3399 afalg/cpu A53".
func (s SpeedupColumn) Name() string {
	if s.Cluster != "" {
		return s.Board + " " + s.Mode + "/" + s.Over + " " + s.Cluster
	}
	return s.Board + " " + s.Mode + "/" + s.Over
}

// Speedup is the ratio of medians of an accelerated mode over a CPU path: 0.81 means 19 % slower.
type Speedup struct {
	SpeedupColumn
	Ratio float64 `json:"ratio"`
}

// Crossover is the smallest block size from which an accelerated mode beats the cpu path at that and every
// larger size measured by both; Never when it does not beat it even at the largest.
type Crossover struct {
	Board     string `json:"board"`
	Mode      string `json:"mode"`
	Algorithm string `json:"algorithm"`
	Op        string `json:"op,omitempty"`
	Threads   int    `json:"threads"`
	BlockSize int    `json:"block_size,omitempty"`
	Never     bool   `json:"never"`
	Cluster   string `json:"cluster,omitempty"`
}

// String is "am335x devcrypto aes-256-cbc: 1024 B" or "...: never".
func (c Crossover) String() string {
	at := "never"
	if !c.Never {
		at = fmt.Sprintf("%d B", c.BlockSize)
	}
	if c.Cluster != "" {
		return fmt.Sprintf("%s %s %s on %s: %s", c.Board, c.Mode, algoLabel(c.Algorithm, c.Op, c.Threads), c.Cluster, at)
	}
	return fmt.Sprintf("%s %s %s: %s", c.Board, c.Mode, algoLabel(c.Algorithm, c.Op, c.Threads), at)
}

// addSpeedups fills, for every accelerated column whose board also has cpu or soft, the ratio of medians per row.
func (c *Comparison) addSpeedups() {
	find := func(board, mode, cluster string) int {
		for i, col := range c.Columns {
			if col.Board == board && col.Mode == mode && col.Cluster == cluster {
				return i
			}
		}
		return -1
	}
	type pair struct{ acc, base int }
	var pairs []pair
	for i, col := range c.Columns {
		if !protocol.IsAccelerated(col.Mode) {
			continue
		}
		for _, over := range []string{"cpu", "soft"} {
			if j := find(col.Board, over, col.Cluster); j >= 0 {
				pairs = append(pairs, pair{i, j})
				c.SpeedupColumns = append(c.SpeedupColumns, SpeedupColumn{col.Board, col.Mode, over, col.Cluster})
			}
		}
	}
	ratios := make([][]float64, len(pairs))
	for ri := range c.Rows {
		r := &c.Rows[ri]
		for pi, p := range pairs {
			a, b := r.Cells[p.acc], r.Cells[p.base]
			if a == nil || b == nil || b.Median == 0 {
				continue
			}
			ratio := a.Median / b.Median
			r.Speedups = append(r.Speedups, Speedup{c.SpeedupColumns[pi], ratio})
			ratios[pi] = append(ratios[pi], ratio)
		}
	}
	for pi, sc := range c.SpeedupColumns {
		if len(ratios[pi]) > 0 {
			c.Geomeans = append(c.Geomeans, Speedup{sc, Geomean(ratios[pi])})
		}
	}
}

// addCrossovers finds, per accelerated mode and algorithm, the block size from which it beats the cpu path.
func (c *Comparison) addCrossovers() {
	type group struct {
		board, mode, alg, op, cluster string
		threads                       int
	}
	type point struct {
		size  int
		ratio float64
	}
	byGroup := map[group][]point{}
	var order []group
	for _, r := range c.Rows {
		for _, s := range r.Speedups {
			if s.Over != "cpu" {
				continue
			}
			g := group{s.Board, s.Mode, r.Algorithm, r.Op, s.Cluster, r.Threads}
			if _, ok := byGroup[g]; !ok {
				order = append(order, g)
			}
			byGroup[g] = append(byGroup[g], point{r.BlockSize, s.Ratio})
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		ca, cb := columnIndex(c.Columns, Column{a.board, a.mode, a.cluster}), columnIndex(c.Columns, Column{b.board, b.mode, b.cluster})
		if ca != cb {
			return ca < cb
		}
		return a.alg < b.alg
	})
	for _, g := range order {
		pts := byGroup[g]
		sort.Slice(pts, func(i, j int) bool { return pts[i].size < pts[j].size })
		x := Crossover{Board: g.board, Mode: g.mode, Algorithm: g.alg, Op: g.op, Threads: g.threads, Never: true,
			Cluster: g.cluster}
		for i := len(pts) - 1; i >= 0 && pts[i].ratio > 1; i-- {
			x.BlockSize, x.Never = pts[i].size, false
		}
		c.Crossovers = append(c.Crossovers, x)
	}
}

// speedup returns the row's ratio for a speedup column, if measured.
func (r CompareRow) speedup(sc SpeedupColumn) (float64, bool) {
	for _, s := range r.Speedups {
		if s.SpeedupColumn == sc {
			return s.Ratio, true
		}
	}
	return 0, false
}
