package report

import (
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// The board-against-board tables of a comparison's default layout (and of its HTML page): for one algorithm at
// one block size, a row per board and accelerator beside the board's cpu and soft paths, so that boards read
// against each other where their own tables (compare_compact.go) read mode against mode.

// boardsTable sets the boards against each other for one algorithm at one block size: a row per board and
// accelerator with its throughput, CPU %, speedup over the board's cpu path and crossover, beside the board's
// cpu and soft paths. False when fewer than two boards measured the algorithm at that size.
func (c *Comparison) boardsTable(rows []CompareRow, size int) (table, bool) {
	r := rowAtSize(rows, size)
	if r == nil || len(c.boardsIn(*r)) < 2 {
		return table{}, false // the board's own table says it all
	}
	v := newBoardsView(c, r)
	t := v.header(size)
	var shown []string
	for _, board := range c.boards() {
		if v.addBoard(&t, board) {
			shown = append(shown, board)
		}
	}
	if note := c.runsNote(shown, false); note != "" {
		t.Notes = append(t.Notes, note)
	}
	return t, true
}

// rowAtSize is the last of rows at the block size, nil when none is.
func rowAtSize(rows []CompareRow, size int) *CompareRow {
	var r *CompareRow
	for i := range rows {
		if rows[i].BlockSize == size {
			r = &rows[i]
		}
	}
	return r
}

// boardsIn are the boards with a cell in the row, as a set.
func (c *Comparison) boardsIn(r CompareRow) map[string]bool {
	boards := map[string]bool{}
	for i, cell := range r.Cells {
		if cell != nil {
			boards[c.Columns[i].Board] = true
		}
	}
	return boards
}

// boardsView is one board-against-board table in the making: its row, and the column groups the row's cells
// call for, which every board's rows follow so that the columns line up.
type boardsView struct {
	c       *Comparison
	r       *CompareRow
	withAcc bool     // a group for the accelerators: mode, throughput, CPU, ×cpu, crossover
	paths   []string // the CPU paths some board measured ("cpu", "soft"), a group each
}

func newBoardsView(c *Comparison, r *CompareRow) boardsView {
	v := boardsView{c: c, r: r}
	v.withAcc = v.hasMode(protocol.IsAccelerated)
	for _, p := range []string{"cpu", "soft"} {
		if v.hasMode(func(m string) bool { return m == p }) {
			v.paths = append(v.paths, p)
		}
	}
	return v
}

// hasMode reports whether a column of a mode that pred accepts has a cell in the row.
func (v boardsView) hasMode(pred func(string) bool) bool {
	for i, cell := range v.r.Cells {
		if cell != nil && pred(v.c.Columns[i].Mode) {
			return true
		}
	}
	return false
}

// header is the table without rows: its title, and a heading and group for the board, the accelerators and
// each CPU path.
func (v boardsView) header(size int) table {
	c := v.c
	t := table{Title: fmt.Sprintf("%s at %d B, board against board (%s median; CPU %% of one core)", v.r.Name(), size, c.Unit),
		Header: []string{"board"}, Left: 1, Groups: []group{{"", 1}}}
	if v.withAcc {
		t.Header = append(t.Header, "mode", c.Unit, "CPU", "×cpu", "crossover")
		t.Left, t.Groups[0].Span = 2, 2
		t.Groups = append(t.Groups, group{"accelerator", 4})
	}
	for _, p := range v.paths {
		t.Header = append(t.Header, c.Unit, "CPU")
		t.Groups = append(t.Groups, group{p, 2})
	}
	return t
}

// addBoard appends the board's rows: one per accelerator it measured ("none" when it measured none), its CPU
// paths on the first; without an accelerator group, one row of its paths. False when the board measured
// nothing in the row, and is not shown.
func (v boardsView) addBoard(t *table, board string) bool {
	accs, measured := v.accelerators(board)
	if !measured {
		return false
	}
	pathCells, pathLinks := v.pathCells(board)
	first := SampleKey{} // the board's name links to its first path's history
	if len(v.paths) > 0 {
		first = v.series(board, v.paths[0])
	}
	if !v.withAcc {
		t.Rows = append(t.Rows, append([]string{board}, pathCells...))
		t.Links = append(t.Links, append([]SampleKey{first}, pathLinks...))
		return true
	}
	if len(accs) == 0 {
		t.Rows = append(t.Rows, append([]string{board, "none", "-", "-", "-", "-"}, pathCells...))
		t.Links = append(t.Links, append([]SampleKey{first, {}, {}, {}, {}, {}}, pathLinks...))
	}
	for ai, mode := range accs {
		row, links := v.acceleratorCells(board, mode, first)
		if ai > 0 {
			row[0], links[0] = "", SampleKey{}                   // the board is named on its first row
			row = append(row, make([]string, len(pathCells))...) // the board's paths are on its first row
		} else {
			row = append(row, pathCells...)
			links = append(links, pathLinks...)
		}
		t.Rows = append(t.Rows, row)
		t.Links = append(t.Links, links)
	}
	return true
}

// accelerators are the accelerated modes of the board's columns with a cell in the row, and measured whether
// any column of the board has one.
func (v boardsView) accelerators(board string) (accs []string, measured bool) {
	for i, col := range v.c.Columns {
		if col.Board != board || v.r.Cells[i] == nil {
			continue
		}
		measured = true
		if protocol.IsAccelerated(col.Mode) {
			accs = append(accs, col.Mode)
		}
	}
	return accs, measured
}

// pathCells are the board's throughput and CPU % on each CPU path of the table; a path's value links to its
// history, its CPU % to nothing.
func (v boardsView) pathCells(board string) ([]string, []SampleKey) {
	var cells []string
	var links []SampleKey
	for _, p := range v.paths {
		val := v.value(board, p)
		cells = append(cells, val...)
		if val[0] == "-" {
			links = append(links, SampleKey{}, SampleKey{})
		} else {
			links = append(links, v.series(board, p), SampleKey{})
		}
	}
	return cells, links
}

// acceleratorCells are the accelerator group of one row: the board, the mode, its throughput and CPU %, its
// speedup over the board's cpu path and its crossover ("-" where there is none), with their links.
func (v boardsView) acceleratorCells(board, mode string, first SampleKey) ([]string, []SampleKey) {
	row := append([]string{board, mode}, v.value(board, mode)...)
	links := []SampleKey{first, v.series(board, mode), v.series(board, mode), {}, {}, {}}
	s, at := "-", "-"
	if ratio, ok := v.r.speedup(SpeedupColumn{Board: board, Mode: mode, Over: "cpu"}); ok {
		s = formatSpeedup(ratio)
	}
	for _, x := range v.c.crossoversOf(board, *v.r) {
		if x.Mode == mode {
			at = crossoverAt(x)
		}
	}
	return append(row, s, at), links
}

// value is the board's throughput in mode, with its marks, and its CPU %; "-" each when it has no cell there.
// The first column of the board and mode with a cell is taken, whatever its cluster.
func (v boardsView) value(board, mode string) []string {
	for i, col := range v.c.Columns {
		if col.Board == board && col.Mode == mode && v.r.Cells[i] != nil {
			cell := v.r.Cells[i]
			val := formatValue(cell.Value)
			if cell.CPUTimed {
				val += markCPUTimed
			}
			val += validityMark(cell)
			return []string{val, cpuText(cell)}
		}
	}
	return []string{"-", "-"}
}

// series is the history a cell of the board and mode links to.
func (v boardsView) series(board, mode string) SampleKey {
	return v.r.key(Column{Board: board, Mode: mode})
}
