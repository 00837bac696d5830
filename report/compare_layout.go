package report

import "fmt"

// noteCPUTimed explains the † mark on throughput cells.
const noteCPUTimed = "† timed on CPU seconds (no -elapsed): throughput is count × block ÷ nominal seconds, a wall-time estimate"

// markCPUTimed is the footnote mark of a CPU-timed cell.
const markCPUTimed = "†"

// document lays the comparison out as tables: throughput, speedups with their geomean, crossovers, CPU %,
// energy, and asymmetric operations per second; each is left out when the comparison has nothing for it.
func (c *Comparison) document() document {
	var d document
	if len(c.Rows) > 0 {
		d.Tables = append(d.Tables, c.throughputTable())
	}
	if len(c.SpeedupColumns) > 0 {
		d.Tables = append(d.Tables, c.speedupTable())
	}
	if len(c.Crossovers) > 0 {
		d.Tables = append(d.Tables, c.crossoverTable())
	}
	if len(c.Rows) > 0 {
		d.Tables = append(d.Tables, c.cpuTable())
	}
	d.Tables = append(d.Tables, c.energyTables(c.fullHeader)...)
	if len(c.AsymRows) > 0 {
		d.Tables = append(d.Tables, c.asymTable())
	}
	if note := c.runsNote(c.boards(), true); note != "" {
		d.Notes = append(d.Notes, note)
	}
	if c.cpuTimed() {
		d.Notes = append(d.Notes, noteCPUTimed)
	}
	d.Notes = append(d.Notes, c.Warnings...)
	return d
}

// throughputTable is the median throughput of every row (algorithm × block size) in every column.
func (c *Comparison) throughputTable() table {
	return table{Title: fmt.Sprintf("Throughput (%s, %s)", c.Unit, medianWhat(c.Rows)),
		Header: c.fullHeader("algorithm", "size"), Left: 2,
		Rows: labelledRows(c.Rows, func(r CompareRow) []string { return fullCells(r, c.throughputText(false)) })}
}

// speedupTable is every speedup column's ratio per row, and its geomean over the rows below them.
func (c *Comparison) speedupTable() table {
	t := table{Title: "Speedup of accelerated modes (ratio of medians; above 1.00× the accelerator is faster)", Left: 2}
	t.Header = []string{"algorithm", "size"}
	for _, sc := range c.SpeedupColumns {
		t.Header = append(t.Header, sc.Name())
	}
	t.Rows = labelledRows(c.Rows, func(r CompareRow) []string {
		var cells []string
		for _, sc := range c.SpeedupColumns {
			cell := "-"
			if v, ok := r.speedup(sc); ok {
				cell = formatSpeedup(v)
			}
			cells = append(cells, cell)
		}
		return cells
	})
	row := []string{"geomean", ""}
	for _, sc := range c.SpeedupColumns {
		cell := "-"
		for _, g := range c.Geomeans {
			if g.SpeedupColumn == sc {
				cell = formatSpeedup(g.Ratio)
			}
		}
		row = append(row, cell)
	}
	t.Rows = append(t.Rows, row)
	return t
}

// crossoverTable lists the crossovers, a row each.
func (c *Comparison) crossoverTable() table {
	t := table{Title: "Crossover: smallest block size from which the accelerator beats cpu at every larger size",
		Header: []string{"board", "mode", "algorithm", "crossover"}, Left: 4}
	for _, x := range c.Crossovers {
		at := "never"
		if !x.Never {
			at = fmt.Sprintf("%d B", x.BlockSize)
		}
		t.Rows = append(t.Rows, []string{x.Board, x.Mode, algoLabel(x.Algorithm, x.Op, x.Threads), at})
	}
	return t
}

// cpuTable is the median CPU % of every row in every column.
func (c *Comparison) cpuTable() table {
	return table{Title: "CPU % (median, user+sys of the process tree over wall time; 100 = one core busy)",
		Header: c.fullHeader("algorithm", "size"), Left: 2,
		Rows: labelledRows(c.Rows, func(r CompareRow) []string {
			return fullCells(r, func(cell *Cell) string { return fmt.Sprintf("%.0f%%", cell.CPUPct) })
		})}
}

// asymTable is the median operations per second of every asymmetric row (algorithm × key) in every column.
func (c *Comparison) asymTable() table {
	return table{Title: "Asymmetric operations (ops/s, " + medianWhat(c.AsymRows) + ")",
		Header: c.fullHeader("algorithm", "key"), Left: 2,
		Rows: labelledRows(c.AsymRows, func(r CompareRow) []string { return fullCells(r, c.throughputText(true)) })}
}

// fullHeader is a full table's heading: the given first columns, then a column per board × mode.
func (c *Comparison) fullHeader(first ...string) []string {
	h := append([]string(nil), first...)
	for _, col := range c.Columns {
		h = append(h, col.Name())
	}
	return h
}

// medianWhat says in a title what a value cell shows: the precision legend where rows were measured to a
// target, else "median ±spread (n)".
func medianWhat(rows []CompareRow) string {
	if legend := precisionLegend(rows, nil); legend != "" {
		return legend
	}
	return "median ±spread (n)"
}

// labelledRows are the table rows of rows: the algorithm (blank where it repeats the row above), the size, then
// the row's cells.
func labelledRows(rows []CompareRow, cells func(CompareRow) []string) [][]string {
	var out [][]string
	prev := ""
	for _, r := range rows {
		out = append(out, append([]string{blankRepeat(&prev, r.Name()), r.Size()}, cells(r)...))
	}
	return out
}

// fullCells are the row's cells in every column: f of a measured one, "-" where the column did not measure it.
func fullCells(r CompareRow, f func(*Cell) string) []string {
	out := make([]string, len(r.Cells))
	for i, cell := range r.Cells {
		if cell == nil {
			out[i] = "-"
			continue
		}
		out[i] = f(cell)
	}
	return out
}

// throughputText is a value cell's text (operations per second when asym), with the † of a CPU-timed
// measurement and its validity mark.
func (c *Comparison) throughputText(asym bool) func(*Cell) string {
	return func(cell *Cell) string {
		s := cellText(cell, c.Unit, asym)
		if cell.CPUTimed {
			s += markCPUTimed
		}
		return s + validityMark(cell)
	}
}

// blankRepeat returns "" when s repeats the previous row's label, so that groups of rows read as groups.
func blankRepeat(prev *string, s string) string {
	if s == *prev {
		return ""
	}
	*prev = s
	return s
}
