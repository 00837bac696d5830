package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// This file picks what the default layout shows: the rows of an algorithm, the boards and modes that measured
// them, the block size where boards meet, and how a cell prints.

// hasSpeedupColumn reports whether a table shows speedups over cpu, which the legend explains.
func hasSpeedupColumn(t table) bool {
	for _, h := range t.Header {
		if h == "×cpu" {
			return true
		}
	}
	return false
}

// rowsByName groups the block-size rows by algorithm label (algorithm, operation, threads), in row order.
func (c *Comparison) rowsByName() ([]string, map[string][]CompareRow) {
	var names []string
	rowsOf := map[string][]CompareRow{}
	for _, r := range c.Rows {
		n := r.Name()
		if _, ok := rowsOf[n]; !ok {
			names = append(names, n)
		}
		rowsOf[n] = append(rowsOf[n], r)
	}
	return names, rowsOf
}

// boards lists the boards in column order.
func (c *Comparison) boards() []string {
	var out []string
	for _, col := range c.Columns {
		if len(out) == 0 || out[len(out)-1] != col.Board {
			out = append(out, col.Board)
		}
	}
	return out
}

// crossoversOf is the crossovers of a board's accelerators for a row's algorithm, operation and threads.
func (c *Comparison) crossoversOf(board string, r CompareRow) []Crossover {
	var out []Crossover
	for _, x := range c.Crossovers {
		if x.Board == board && x.Algorithm == r.Algorithm && x.Op == r.Op && x.Threads == r.Threads {
			out = append(out, x)
		}
	}
	return out
}

// throughput prints a cell as "median ±spread", with "(n)" when the table does not state n once for all.
func (c *Comparison) throughput(cell *Cell, withN bool) string {
	s := cellText(cell, c.Unit, false)
	if !withN && cell.Precision == nil {
		s = formatValue(cell.Value)
		if cell.N > 1 {
			s += " ±" + formatPct(cell.Spread)
		}
	}
	if cell.CPUTimed {
		s += markCPUTimed
	}
	s += validityMark(cell)
	return s
}

// cpuTimed reports whether any throughput cell is a wall-time estimate from a CPU-timed run.
func (c *Comparison) cpuTimed() bool {
	for _, r := range c.Rows {
		for _, cell := range r.Cells {
			if cell != nil && cell.CPUTimed {
				return true
			}
		}
	}
	return false
}

// blockSizes lists the block sizes measured, ascending: "16, 1024, 16384".
func (c *Comparison) blockSizes() string {
	seen := map[int]bool{}
	var sizes []int
	for _, r := range c.Rows {
		if !seen[r.BlockSize] {
			seen[r.BlockSize] = true
			sizes = append(sizes, r.BlockSize)
		}
	}
	sort.Ints(sizes)
	out := make([]string, len(sizes))
	for i, s := range sizes {
		out[i] = strconv.Itoa(s)
	}
	return strings.Join(out, ", ")
}

// cpuText prints a cell's CPU %, or "-" when nothing accounted for it (an imported capture without time -v):
// a command that ran always used some CPU, so an exact 0 is unknown rather than free.
func cpuText(cell *Cell) string {
	if cell.CPUPct == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", cell.CPUPct)
}

func crossoverAt(x Crossover) string {
	if x.Never {
		return "never"
	}
	return fmt.Sprintf("%d B", x.BlockSize)
}

func hasSize(rows []CompareRow, size int) bool {
	for _, r := range rows {
		if r.BlockSize == size {
			return true
		}
	}
	return false
}

// defaultSize is where the boards are set against each other when no size is chosen: the largest block size
// (where accelerators matter most) that at least two boards measured, else the largest measured.
func (c *Comparison) defaultSize(rows []CompareRow) int {
	size, shared := 0, 0
	for _, r := range rows {
		size = max(size, r.BlockSize)
		boards := map[string]bool{}
		for i, cell := range r.Cells {
			if cell != nil {
				boards[c.Columns[i].Board] = true
			}
		}
		if len(boards) > 1 {
			shared = max(shared, r.BlockSize)
		}
	}
	if shared > 0 {
		return shared
	}
	return size
}

// uniformN returns the number of samples of the cells in the given columns when they all have the same.
func uniformN(rows []CompareRow, cols []int) (int, bool) {
	n := -1
	for _, r := range rows {
		for _, i := range cols {
			if cell := r.Cells[i]; cell != nil {
				if n >= 0 && cell.N != n {
					return 0, false
				}
				n = cell.N
			}
		}
	}
	return n, n >= 0
}

func anyCell(rows []CompareRow, col int) bool {
	for _, r := range rows {
		if r.Cells[col] != nil {
			return true
		}
	}
	return false
}

func anyCellOf(r CompareRow, cols []int) bool {
	for _, i := range cols {
		if r.Cells[i] != nil {
			return true
		}
	}
	return false
}

func anySpeedup(rows []CompareRow, sc SpeedupColumn) bool {
	for _, r := range rows {
		if _, ok := r.speedup(sc); ok {
			return true
		}
	}
	return false
}

// filter keeps the points of the boards, modes and algorithms asked for (all of them for an empty list).
func filter(ms []store.Measurement, opts CompareOptions) []store.Measurement {
	in := func(list []string, v string) bool {
		if len(list) == 0 {
			return true
		}
		for _, x := range list {
			if strings.EqualFold(x, v) {
				return true
			}
		}
		return false
	}
	var out []store.Measurement
	for _, m := range ms {
		if in(opts.Boards, m.Board) && in(opts.Modes, m.Mode) && in(opts.Algorithms, m.Algorithm) {
			out = append(out, m)
		}
	}
	return out
}
