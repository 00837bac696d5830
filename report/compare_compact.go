package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
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
		first := len(d.Tables)
		for _, n := range names {
			if t, ok := c.boardTable(b, rowsOf[n]); ok {
				d.Tables = append(d.Tables, t)
			}
		}
		if t, ok := c.boardAsymTable(b); ok {
			d.Tables = append(d.Tables, t)
		}
		if r := c.runsOf(b); r != "" && first < len(d.Tables) {
			d.Tables[first].Heading = b + ": " + r // where the board's tables come from, above the first of them
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
	if rowsHaveEnergy(c.Rows, nil) {
		d.Notes = append(d.Notes, noteEnergy)
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
	withSpeedup, withEnergy := map[int]bool{}, map[int]bool{}
	for _, i := range cols {
		col := c.Columns[i]
		g := group{col.modeLabel(), 2}
		t.Header = append(t.Header, c.Unit, "CPU")
		if rowsHaveEnergy(rows, []int{i}) {
			withEnergy[i] = true
			g.Span++
			t.Header = append(t.Header, "µJ/B")
		}
		if protocol.IsAccelerated(col.Mode) && anySpeedup(rows, SpeedupColumn{board, col.Mode, "cpu", col.Cluster}) {
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
		links := []SampleKey{r.key(c.Columns[cols[0]])} // the size: the first mode's history
		for _, i := range cols {
			cell := r.Cells[i]
			if cell == nil {
				row = append(row, "-", "-")
				links = append(links, SampleKey{}, SampleKey{})
			} else {
				row = append(row, c.throughput(cell, !uniform), cpuText(cell))
				links = append(links, r.key(c.Columns[i]), SampleKey{}) // a mode's value: its history
			}
			if withEnergy[i] {
				s := "-"
				if cell.hasEnergy() {
					s = energyText(cell)
				}
				row = append(row, s)
				links = append(links, SampleKey{})
			}
			if withSpeedup[i] {
				s := "-"
				if v, ok := r.speedup(SpeedupColumn{board, c.Columns[i].Mode, "cpu", c.Columns[i].Cluster}); ok {
					s = formatSpeedup(v)
				}
				row = append(row, s)
				links = append(links, SampleKey{})
			}
		}
		t.Rows = append(t.Rows, row)
		t.Links = append(t.Links, links)
	}
	what := c.Unit + " median ±spread (n)"
	switch legend := precisionLegend(rows, cols); {
	case legend != "":
		what = c.Unit + " " + legend
	case uniform:
		what = fmt.Sprintf("%s median ±spread, n = %d", c.Unit, n)
		if n == 1 {
			what = c.Unit + ", n = 1"
		}
	}
	t.Title = fmt.Sprintf("%s %s (%s; CPU %% of one core)", board, rows[0].Name(), what)
	t.Notes = c.crossoverNotes(board, rows[0])
	return t, true
}

// crossoverNotes are a board table's lines of crossovers over cpu, of throughput then of energy, for r's
// algorithm; none when there is none.
func (c *Comparison) crossoverNotes(board string, r CompareRow) []string {
	var notes, xs []string
	for _, x := range c.crossoversOf(board, r) {
		xs = append(xs, Column{Mode: x.Mode, Cluster: x.Cluster}.modeLabel()+" "+crossoverAt(x))
	}
	if len(xs) > 0 {
		notes = []string{"crossover over cpu: " + strings.Join(xs, ", ")}
	}
	if note := c.energyCrossoverNote(board, r); note != "" {
		notes = append(notes, note)
	}
	return notes
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
	what := "median ±spread (n)"
	if legend := precisionLegend(c.AsymRows, cols); legend != "" {
		what = legend
	}
	t := table{Title: board + " asymmetric: ops/s " + what, Header: []string{"algorithm"}, Left: 1}
	for _, i := range cols {
		t.Header = append(t.Header, c.Columns[i].modeLabel())
	}
	for _, r := range c.AsymRows {
		if !anyCellOf(r, cols) {
			continue
		}
		row := []string{r.Name() + " " + r.Size()}
		links := []SampleKey{r.key(c.Columns[cols[0]])}
		for _, i := range cols {
			if cell := r.Cells[i]; cell != nil {
				row = append(row, cellText(cell, c.Unit, true))
				links = append(links, r.key(c.Columns[i]))
			} else {
				row = append(row, "-")
				links = append(links, SampleKey{})
			}
		}
		t.Rows = append(t.Rows, row)
		t.Links = append(t.Links, links)
	}
	return t, true
}
