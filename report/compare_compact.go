package report

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// TextWidth is the widest line the default text layout of a comparison prints, so that it reads in a terminal.
const TextWidth = 100

// ErrSizeNotMeasured is returned when the board-against-board tables are asked for a block size no algorithm
// was measured at.
var ErrSizeNotMeasured = errors.New("no algorithm was measured at that block size")

// noteSpeedup explains the speedup and crossover columns of the default layout.
const noteSpeedup = "×cpu: the accelerator's median over the cpu path's on the same board (above 1.00× it is faster); " +
	"crossover: the smallest block size from which it beats cpu at that and every larger size measured"

// Layout chooses how a comparison is printed as text (and, for Size, as HTML).
type Layout struct {
	// Wide prints the full tables: one row per algorithm and block size, a column per board × mode, as wide
	// as the data. Markdown and CSV are always full.
	Wide bool
	// Size is the block size of the board-against-board tables; 0 takes, per algorithm, the largest that at
	// least two boards measured.
	Size int
	// Width is the widest line of the default text layout; 0 is TextWidth. A terminal's own width fits it better.
	Width int
}

// compactDocument is the default text layout: per board, the vendor-guide table of each algorithm (a row per
// block size; per mode, accelerators first, throughput and CPU % side by side, with the accelerators' speedup
// over the cpu path and their crossover); then, with several boards, one board-against-board table per
// algorithm at one block size. Its lines fit l.Width (TextWidth by default): wider tables are split between
// modes.
func (c *Comparison) compactDocument(l Layout) (document, error) {
	d := document{Width: TextWidth}
	if l.Width > 0 {
		d.Width = l.Width
	}
	names, rowsOf := c.rowsByName()
	boards := c.boards()
	for _, b := range boards {
		for _, n := range names {
			if t, ok := c.boardTable(b, rowsOf[n]); ok {
				d.Tables = append(d.Tables, t)
			}
		}
		if t, ok := c.boardAsymTable(b); ok {
			d.Tables = append(d.Tables, t)
		}
	}
	legend := false
	for _, t := range d.Tables {
		legend = legend || hasSpeedupColumn(t)
	}
	if len(boards) > 1 && len(names) > 0 {
		found := false
		var missing []string
		for _, n := range names {
			size := l.Size
			if size == 0 {
				size = c.defaultSize(rowsOf[n])
			}
			if !hasSize(rowsOf[n], size) {
				missing = append(missing, n)
				continue
			}
			found = true
			if t, ok := c.boardsTable(rowsOf[n], size); ok {
				d.Tables = append(d.Tables, t)
				legend = true
			}
		}
		if !found {
			return d, fmt.Errorf("board-against-board tables at %d B: %w (measured: %s)", l.Size, ErrSizeNotMeasured,
				c.blockSizes())
		}
		if len(missing) > 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("not measured at %d B, so not set board against board: %s",
				l.Size, strings.Join(missing, ", ")))
		}
	}
	if legend {
		d.Notes = append(d.Notes, noteSpeedup)
	}
	if c.cpuTimed() {
		d.Notes = append(d.Notes, noteCPUTimed)
	}
	d.Notes = append(d.Notes, c.Warnings...)
	return d, nil
}

// boardTable is the vendor-guide table of one board for the rows of one algorithm, or false when the board
// measured none of them. Modes and rows without a measurement are left out.
func (c *Comparison) boardTable(board string, rows []CompareRow) (table, bool) {
	var cols []int
	for i, col := range c.Columns {
		if col.Board == board && anyCell(rows, i) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return table{}, false
	}
	n, uniform := uniformN(rows, cols)
	t := table{Header: []string{"size"}, Left: 1, Groups: []group{{"", 1}}}
	withSpeedup := map[int]bool{}
	for _, i := range cols {
		col := c.Columns[i]
		g := group{col.Mode, 2}
		t.Header = append(t.Header, c.Unit, "CPU")
		if Accelerated(col.Mode) && anySpeedup(rows, SpeedupColumn{board, col.Mode, "cpu"}) {
			withSpeedup[i] = true
			g.Span++
			t.Header = append(t.Header, "×cpu")
		}
		t.Groups = append(t.Groups, g)
	}
	for _, r := range rows {
		if !anyCellOf(r, cols) {
			continue
		}
		row := []string{r.Size()}
		for _, i := range cols {
			cell := r.Cells[i]
			if cell == nil {
				row = append(row, "-", "-")
			} else {
				row = append(row, c.throughput(cell, !uniform), cpuText(cell))
			}
			if withSpeedup[i] {
				s := "-"
				if v, ok := r.speedup(SpeedupColumn{board, c.Columns[i].Mode, "cpu"}); ok {
					s = formatSpeedup(v)
				}
				row = append(row, s)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	what := c.Unit + " median ±spread (n)"
	if uniform {
		what = fmt.Sprintf("%s median ±spread, n = %d", c.Unit, n)
		if n == 1 {
			what = c.Unit + ", n = 1"
		}
	}
	t.Title = fmt.Sprintf("%s %s (%s; CPU %% of one core)", board, rows[0].Name(), what)
	var xs []string
	for _, x := range c.crossoversOf(board, rows[0]) {
		xs = append(xs, x.Mode+" "+crossoverAt(x))
	}
	if len(xs) > 0 {
		t.Notes = []string{"crossover over cpu: " + strings.Join(xs, ", ")}
	}
	return t, true
}

// boardAsymTable is one board's asymmetric operations per second, a column per mode with a measurement.
func (c *Comparison) boardAsymTable(board string) (table, bool) {
	var cols []int
	for i, col := range c.Columns {
		if col.Board == board && anyCell(c.AsymRows, i) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return table{}, false
	}
	t := table{Title: board + " asymmetric: ops/s median ±spread (n)", Header: []string{"algorithm"}, Left: 1}
	for _, i := range cols {
		t.Header = append(t.Header, c.Columns[i].Mode)
	}
	for _, r := range c.AsymRows {
		if !anyCellOf(r, cols) {
			continue
		}
		row := []string{r.Name() + " " + r.Size()}
		for _, i := range cols {
			if cell := r.Cells[i]; cell != nil {
				row = append(row, formatCell(cell.summary(), c.Unit, true))
			} else {
				row = append(row, "-")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, true
}

// boardsTable sets the boards against each other for one algorithm at one block size: a row per board and
// accelerator with its throughput, CPU %, speedup over the board's cpu path and crossover, beside the board's
// cpu and soft paths. False when fewer than two boards measured the algorithm at that size.
func (c *Comparison) boardsTable(rows []CompareRow, size int) (table, bool) {
	var r *CompareRow
	for i := range rows {
		if rows[i].BlockSize == size {
			r = &rows[i]
		}
	}
	if r == nil {
		return table{}, false
	}
	hasMode := func(pred func(string) bool) bool {
		for i, cell := range r.Cells {
			if cell != nil && pred(c.Columns[i].Mode) {
				return true
			}
		}
		return false
	}
	is := func(m string) func(string) bool { return func(x string) bool { return x == m } }
	boards := map[string]bool{}
	for i, cell := range r.Cells {
		if cell != nil {
			boards[c.Columns[i].Board] = true
		}
	}
	if len(boards) < 2 {
		return table{}, false // the board's own table says it all
	}
	withAcc := hasMode(Accelerated)
	t := table{Title: fmt.Sprintf("%s at %d B, board against board (%s median; CPU %% of one core)", r.Name(), size, c.Unit),
		Header: []string{"board"}, Left: 1, Groups: []group{{"", 1}}}
	if withAcc {
		t.Header = append(t.Header, "mode", c.Unit, "CPU", "×cpu", "crossover")
		t.Left, t.Groups[0].Span = 2, 2
		t.Groups = append(t.Groups, group{"accelerator", 4})
	}
	var paths []string
	for _, p := range []string{"cpu", "soft"} {
		if hasMode(is(p)) {
			paths = append(paths, p)
			t.Header = append(t.Header, c.Unit, "CPU")
			t.Groups = append(t.Groups, group{p, 2})
		}
	}
	value := func(board, mode string) []string {
		for i, col := range c.Columns {
			if col.Board == board && col.Mode == mode && r.Cells[i] != nil {
				cell := r.Cells[i]
				v := formatValue(cell.Value)
				if cell.CPUTimed {
					v += markCPUTimed
				}
				return []string{v, cpuText(cell)}
			}
		}
		return []string{"-", "-"}
	}
	for _, board := range c.boards() {
		var accs []string
		measured := false
		for i, col := range c.Columns {
			if col.Board != board || r.Cells[i] == nil {
				continue
			}
			measured = true
			if Accelerated(col.Mode) {
				accs = append(accs, col.Mode)
			}
		}
		if !measured {
			continue
		}
		var pathCells []string
		for _, p := range paths {
			pathCells = append(pathCells, value(board, p)...)
		}
		if !withAcc {
			t.Rows = append(t.Rows, append([]string{board}, pathCells...))
			continue
		}
		if len(accs) == 0 {
			t.Rows = append(t.Rows, append([]string{board, "none", "-", "-", "-", "-"}, pathCells...))
		}
		for ai, mode := range accs {
			row := []string{board, mode}
			if ai > 0 {
				row[0] = ""
			}
			row = append(row, value(board, mode)...)
			s, at := "-", "-"
			if v, ok := r.speedup(SpeedupColumn{board, mode, "cpu"}); ok {
				s = formatSpeedup(v)
			}
			for _, x := range c.crossoversOf(board, *r) {
				if x.Mode == mode {
					at = crossoverAt(x)
				}
			}
			row = append(row, s, at)
			if ai > 0 {
				row = append(row, make([]string, len(pathCells))...) // the board's paths are on its first row
			} else {
				row = append(row, pathCells...)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t, true
}

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
	s := formatCell(cell.summary(), c.Unit, false)
	if !withN {
		s = formatValue(cell.Value)
		if cell.N > 1 {
			s += " ±" + formatPct(cell.Spread)
		}
	}
	if cell.CPUTimed {
		s += markCPUTimed
	}
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
