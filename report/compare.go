package report

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// ErrNoMeasurements is returned when nothing is left to compare after filtering.
var ErrNoMeasurements = errors.New("no measurements match")

// CompareOptions selects what a comparison shows. Empty lists select everything, in a sensible order; a list
// given also fixes the order of the columns (boards, modes) or rows (algorithms).
type CompareOptions struct {
	Boards     []string
	Modes      []string
	Algorithms []string
	Unit       string // kB/s, MB/s (default), MiB/s, Mbit/s
}

// Column is one (board, mode) column of a comparison.
type Column struct {
	Board string `json:"board"`
	Mode  string `json:"mode"`
	// Cluster is the cluster the column's points were pinned to ("A53"): each cluster of a board is a column of
	// its own; "" for points not pinned.
	Cluster string `json:"cluster,omitempty"`
}

// Name is the column heading: "am64x devcrypto", "rk3399 cpu A72".
func (c Column) Name() string {
	if c.Cluster != "" {
		return c.Board + " " + c.Mode + " " + c.Cluster
	}
	return c.Board + " " + c.Mode
}

// modeLabel is the column's mode as a board's own table heads it: "cpu", "cpu on A72".
func (c Column) modeLabel() string {
	if c.Cluster != "" {
		return c.Mode + " on " + c.Cluster
	}
	return c.Mode
}

// Cell is one sample of a comparison. Median, Min and Max are bytes per second, or operations per second in
// asymmetric rows; Value is the median in the comparison's unit (ops/s for asymmetric rows).
type Cell struct {
	Board    string  `json:"board"`
	Mode     string  `json:"mode"`
	Cluster  string  `json:"cluster,omitempty"`
	Value    float64 `json:"value"`
	Median   float64 `json:"median"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	Spread   float64 `json:"spread"` // fraction: 0.03 = ±3%
	N        int     `json:"n"`
	CPUPct   float64 `json:"cpu_pct"`             // median CPU % of the process tree
	CPUTimed bool    `json:"cpu_timed,omitempty"` // throughput estimated from a CPU-timed run
	Runs     []int64 `json:"runs"`
	Failed   int     `json:"failed,omitempty"`
	Suspect  int     `json:"suspect,omitempty"` // points judged suspect, marked ‡
	Invalid  int     `json:"invalid,omitempty"` // points judged invalid, marked ‡; regress never judges them
	Wrong    int     `json:"wrong,omitempty"`   // points whose path gave a wrong output, marked ✗; regress fails them
	// Precision is what a point measured to a precision target reached; nil without a target.
	Precision *Precision `json:"precision,omitempty"`
	// UJPerByte is the median µJ per byte above the board's idle power of the points that carry one
	// (compare_energy.go); nil, never 0, when none does. EnergyUnknown then says why, when the points say.
	UJPerByte     *float64 `json:"uj_per_byte,omitempty"`
	EnergyUnknown string   `json:"energy_unknown,omitempty"`
}

func (c *Cell) summary() Summary { return Summary{Median: c.Median, Min: c.Min, Max: c.Max, N: c.N} }

// CompareRow is one algorithm × size row. Cells line up with Comparison.Columns; a nil cell was not measured.
type CompareRow struct {
	Algorithm string    `json:"algorithm"`
	Op        string    `json:"op,omitempty"`
	Threads   int       `json:"threads"`
	BlockSize int       `json:"block_size,omitempty"`
	KeyBits   int       `json:"key_bits,omitempty"`
	Curve     string    `json:"curve,omitempty"`
	Cells     []*Cell   `json:"cells"`
	Speedups  []Speedup `json:"speedups,omitempty"`
}

// key is the series of the row's cell in column col.
func (r CompareRow) key(col Column) SampleKey {
	return SampleKey{Board: col.Board, Mode: col.Mode, Algorithm: r.Algorithm, Op: r.Op, BlockSize: r.BlockSize,
		KeyBits: r.KeyBits, Curve: r.Curve, Threads: r.Threads, Cluster: col.Cluster}
}

// Name is the row's algorithm label, with the operation and threads where they are not the defaults.
func (r CompareRow) Name() string { return algoLabel(r.Algorithm, r.Op, r.Threads) }

// Size is the row's size label: "16384 B" or the key size or curve.
func (r CompareRow) Size() string {
	if r.BlockSize > 0 {
		return fmt.Sprintf("%d B", r.BlockSize)
	}
	return asymSize(r.KeyBits, r.Curve)
}

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

// Comparison is the vendor-guide table for a set of boards and modes: throughput per algorithm and block size,
// CPU %, speedups of accelerators over the CPU paths, crossovers, and asymmetric operations per second.
type Comparison struct {
	Unit           string          `json:"unit"`
	Columns        []Column        `json:"columns"`
	Rows           []CompareRow    `json:"rows"`
	AsymRows       []CompareRow    `json:"asym_rows"`
	SpeedupColumns []SpeedupColumn `json:"speedup_columns"`
	Geomeans       []Speedup       `json:"geomeans"` // geometric mean of each speedup column over the rows
	Crossovers     []Crossover     `json:"crossovers"`
	// EnergyCrossovers are the crossovers on µJ/B, lower better; absent when no two cells to set against each
	// other carry energy.
	EnergyCrossovers []Crossover `json:"energy_crossovers,omitempty"`
	// Runs are the runs each board's figures come from; Absent the boards of the selection the filters left
	// without a point, with what their runs measured (also said in Warnings).
	Runs     []BoardRun `json:"runs"`
	Absent   []Absent   `json:"absent"`
	Warnings []string   `json:"warnings"`
}

// Compare lays out measurements (normally the latest run of each board) as a comparison.
func Compare(ms []store.Measurement, opts CompareOptions) (*Comparison, error) {
	unit, err := canonicalUnit(opts.Unit)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	all := ms
	ms = filter(ms, opts)
	absent := absentBoards(all, ms, opts)
	var said []string
	for _, a := range absent {
		said = append(said, a.String(opts))
	}
	if len(ms) == 0 {
		if len(said) > 0 {
			return nil, fmt.Errorf("compare: %w: %s", ErrNoMeasurements, strings.Join(said, "; "))
		}
		return nil, fmt.Errorf("compare: %w", ErrNoMeasurements)
	}
	samples, warnings := Group(ms)
	energy := sampleEnergy(ms)
	c := &Comparison{Unit: unit, Runs: boardRuns(ms), Absent: absent, Warnings: append(said, warnings...)}

	colIndex := map[Column]int{}
	for _, s := range samples {
		col := Column{Board: s.Key.Board, Mode: s.Key.Mode, Cluster: s.Key.Cluster}
		if _, ok := colIndex[col]; !ok {
			colIndex[col] = 0
			c.Columns = append(c.Columns, col)
		}
	}
	sort.SliceStable(c.Columns, func(i, j int) bool { return columnLess(c.Columns[i], c.Columns[j], opts) })
	for i, col := range c.Columns {
		colIndex[col] = i
	}

	type rowKey struct {
		Algorithm, Op   string
		Threads         int
		BlockSize, Bits int
		Curve           string
	}
	rows := map[rowKey]*CompareRow{}
	var keys []rowKey
	for _, s := range samples {
		k := s.Key
		if len(s.Values) == 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: all %d points failed", k.Label(), s.Failed))
			continue
		}
		rk := rowKey{k.Algorithm, k.Op, k.Threads, k.BlockSize, k.KeyBits, k.Curve}
		r := rows[rk]
		if r == nil {
			r = &CompareRow{Algorithm: k.Algorithm, Op: k.Op, Threads: k.Threads, BlockSize: k.BlockSize,
				KeyBits: k.KeyBits, Curve: k.Curve, Cells: make([]*Cell, len(c.Columns))}
			rows[rk] = r
			keys = append(keys, rk)
		}
		sum := s.Summary()
		value := sum.Median
		if !k.Asym() {
			value = inUnit(value, unit)
		}
		r.Cells[colIndex[Column{Board: k.Board, Mode: k.Mode, Cluster: k.Cluster}]] = &Cell{Board: k.Board, Mode: k.Mode, Cluster: k.Cluster, Value: value,
			Median: sum.Median, Min: sum.Min, Max: sum.Max, Spread: sum.Spread(), N: sum.N, CPUPct: s.CPU(),
			CPUTimed: s.CPUTimed, Runs: s.Runs, Failed: s.Failed, Suspect: s.Suspect, Invalid: s.Invalid, Wrong: s.Wrong, Precision: precisionOf(s),
			UJPerByte: energy[k].ujPerByte, EnergyUnknown: energy[k].unknown}
		if s.Failed > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %d failed points excluded", k.Label(), s.Failed))
		}
	}
	c.Warnings = append(c.Warnings, verificationNotes(samples)...)
	c.Warnings = append(c.Warnings, validityNotes(samples)...)
	c.Warnings = append(c.Warnings, precisionNotes(samples)...)
	algRank := rankOf(opts.Algorithms)
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if ra, rb := algRank(a.Algorithm), algRank(b.Algorithm); ra != rb {
			return ra < rb
		}
		return keyLess(SampleKey{Algorithm: a.Algorithm, Op: a.Op, Threads: a.Threads, BlockSize: a.BlockSize, KeyBits: a.Bits, Curve: a.Curve},
			SampleKey{Algorithm: b.Algorithm, Op: b.Op, Threads: b.Threads, BlockSize: b.BlockSize, KeyBits: b.Bits, Curve: b.Curve})
	})
	for _, k := range keys {
		if k.BlockSize > 0 {
			c.Rows = append(c.Rows, *rows[k])
		} else {
			c.AsymRows = append(c.AsymRows, *rows[k])
		}
	}
	c.addSpeedups()
	c.addCrossovers()
	c.addEnergyCrossovers()
	c.nonNil()
	return c, nil
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

// rankOf returns the position of a value in an explicit order; values not listed sort after, as equals.
func rankOf(order []string) func(string) int {
	return func(v string) int {
		for i, x := range order {
			if strings.EqualFold(x, v) {
				return i
			}
		}
		return len(order)
	}
}

func columnLess(a, b Column, opts CompareOptions) bool {
	board, mode := rankOf(opts.Boards), rankOf(opts.Modes)
	if ra, rb := board(a.Board), board(b.Board); ra != rb {
		return ra < rb
	}
	if a.Board != b.Board {
		return a.Board < b.Board
	}
	if ra, rb := mode(a.Mode), mode(b.Mode); ra != rb {
		return ra < rb
	}
	return modeLess(a.Mode, b.Mode)
}

// nonNil replaces nil slices with empty ones so that JSON shows [] rather than null.
func (c *Comparison) nonNil() {
	if c.Rows == nil {
		c.Rows = []CompareRow{}
	}
	if c.AsymRows == nil {
		c.AsymRows = []CompareRow{}
	}
	if c.SpeedupColumns == nil {
		c.SpeedupColumns = []SpeedupColumn{}
	}
	if c.Geomeans == nil {
		c.Geomeans = []Speedup{}
	}
	if c.Crossovers == nil {
		c.Crossovers = []Crossover{}
	}
	if c.Warnings == nil {
		c.Warnings = []string{}
	}
	if c.Runs == nil {
		c.Runs = []BoardRun{}
	}
	if c.Absent == nil {
		c.Absent = []Absent{}
	}
}
