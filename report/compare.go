package report

import (
	"errors"
	"fmt"
	"sort"
	"strings"

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
	kept := filter(ms, opts)
	absent := absentBoards(ms, kept, opts)
	var said []string
	for _, a := range absent {
		said = append(said, a.String(opts))
	}
	if len(kept) == 0 {
		if len(said) > 0 {
			return nil, fmt.Errorf("compare: %w: %s", ErrNoMeasurements, strings.Join(said, "; "))
		}
		return nil, fmt.Errorf("compare: %w", ErrNoMeasurements)
	}
	samples, warnings := Group(kept)
	c := &Comparison{Unit: unit, Runs: boardRuns(kept), Absent: absent, Warnings: append(said, warnings...),
		Columns: compareColumns(samples, opts)}
	c.addRows(samples, sampleEnergy(kept), opts)
	c.addSpeedups()
	c.addCrossovers()
	c.addEnergyCrossovers()
	c.nonNil()
	return c, nil
}

// compareColumns are the (board, mode, cluster) columns the samples fill, each once, in the order opts gives
// (columnLess): the cells of every row line up with them.
func compareColumns(samples []*Sample, opts CompareOptions) []Column {
	seen := map[Column]bool{}
	var cols []Column
	for _, s := range samples {
		col := Column{Board: s.Key.Board, Mode: s.Key.Mode, Cluster: s.Key.Cluster}
		if !seen[col] {
			seen[col] = true
			cols = append(cols, col)
		}
	}
	sort.SliceStable(cols, func(i, j int) bool { return columnLess(cols[i], cols[j], opts) })
	return cols
}

// compareRowKey is what a row of a comparison stands for: a series without its column (board, mode, cluster).
type compareRowKey struct {
	Algorithm, Op   string
	Threads         int
	BlockSize, Bits int
	Curve           string
}

func rowKeyOf(k SampleKey) compareRowKey {
	return compareRowKey{k.Algorithm, k.Op, k.Threads, k.BlockSize, k.KeyBits, k.Curve}
}

// sampleKey is the row's series with no column, for keyLess.
func (k compareRowKey) sampleKey() SampleKey {
	return SampleKey{Algorithm: k.Algorithm, Op: k.Op, Threads: k.Threads, BlockSize: k.BlockSize, KeyBits: k.Bits,
		Curve: k.Curve}
}

// addRows fills Rows (block sizes) and AsymRows (key sizes, curves) from the samples, a cell per column that
// measured the row, in the order of opts.Algorithms, then of the series; and the warnings the samples carry
// (failed, wrong, invalid or imprecise points), in that order.
func (c *Comparison) addRows(samples []*Sample, energy map[SampleKey]cellEnergy, opts CompareOptions) {
	rows, keys := c.groupRows(samples, energy)
	c.Warnings = append(c.Warnings, verificationNotes(samples)...)
	c.Warnings = append(c.Warnings, validityNotes(samples)...)
	c.Warnings = append(c.Warnings, precisionNotes(samples)...)
	algRank := rankOf(opts.Algorithms)
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if ra, rb := algRank(a.Algorithm), algRank(b.Algorithm); ra != rb {
			return ra < rb
		}
		return keyLess(a.sampleKey(), b.sampleKey())
	})
	for _, k := range keys {
		if k.BlockSize > 0 {
			c.Rows = append(c.Rows, *rows[k])
		} else {
			c.AsymRows = append(c.AsymRows, *rows[k])
		}
	}
}

// groupRows puts each sample with a usable value in its row's cell of its column, the rows in the order they
// first appear; a sample whose points all failed is a warning instead, and failed points beside good ones are
// one too.
func (c *Comparison) groupRows(samples []*Sample, energy map[SampleKey]cellEnergy) (map[compareRowKey]*CompareRow, []compareRowKey) {
	colIndex := map[Column]int{}
	for i, col := range c.Columns {
		colIndex[col] = i
	}
	rows := map[compareRowKey]*CompareRow{}
	var keys []compareRowKey
	for _, s := range samples {
		k := s.Key
		if len(s.Values) == 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: all %d points failed", k.Label(), s.Failed))
			continue
		}
		rk := rowKeyOf(k)
		r := rows[rk]
		if r == nil {
			r = &CompareRow{Algorithm: k.Algorithm, Op: k.Op, Threads: k.Threads, BlockSize: k.BlockSize,
				KeyBits: k.KeyBits, Curve: k.Curve, Cells: make([]*Cell, len(c.Columns))}
			rows[rk] = r
			keys = append(keys, rk)
		}
		r.Cells[colIndex[Column{Board: k.Board, Mode: k.Mode, Cluster: k.Cluster}]] = newCell(s, c.Unit, energy[k])
		if s.Failed > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %d failed points excluded", k.Label(), s.Failed))
		}
	}
	return rows, keys
}

// newCell is a sample's cell: its median in unit (ops/s for an asymmetric series, whatever unit says), the
// summary in bytes or operations per second, its CPU %, marks and energy.
func newCell(s *Sample, unit string, e cellEnergy) *Cell {
	k := s.Key
	sum := s.Summary()
	value := sum.Median
	if !k.Asym() {
		value = inUnit(value, unit)
	}
	return &Cell{Board: k.Board, Mode: k.Mode, Cluster: k.Cluster, Value: value,
		Median: sum.Median, Min: sum.Min, Max: sum.Max, Spread: sum.Spread(), N: sum.N, CPUPct: s.CPU(),
		CPUTimed: s.CPUTimed, Runs: s.Runs, Failed: s.Failed, Suspect: s.Suspect, Invalid: s.Invalid, Wrong: s.Wrong,
		Precision: precisionOf(s), UJPerByte: e.ujPerByte, EnergyUnknown: e.unknown}
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
