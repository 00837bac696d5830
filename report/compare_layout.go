package report

import "fmt"

// noteCPUTimed explains the † mark on throughput cells.
const noteCPUTimed = "† timed on CPU seconds (no -elapsed): throughput is count × block ÷ nominal seconds, a wall-time estimate"

// markCPUTimed is the footnote mark of a CPU-timed cell.
const markCPUTimed = "†"

// document lays the comparison out as tables: throughput, speedups with their geomean, crossovers, CPU %, and
// asymmetric operations per second.
func (c *Comparison) document() document {
	var d document
	cpuTimed := false
	header := func(first ...string) []string {
		h := append([]string(nil), first...)
		for _, col := range c.Columns {
			h = append(h, col.Name())
		}
		return h
	}
	cells := func(r CompareRow, asym bool, f func(*Cell) string) []string {
		out := make([]string, len(r.Cells))
		for i, cell := range r.Cells {
			if cell == nil {
				out[i] = "-"
				continue
			}
			out[i] = f(cell)
			if cell.CPUTimed && !asym {
				cpuTimed = true
			}
		}
		return out
	}
	throughput := func(asym bool) func(*Cell) string {
		return func(cell *Cell) string {
			s := cellText(cell, c.Unit, asym)
			if cell.CPUTimed {
				s += markCPUTimed
			}
			s += validityMark(cell)
			return s
		}
	}

	if len(c.Rows) > 0 {
		what := "median ±spread (n)"
		if legend := precisionLegend(c.Rows, nil); legend != "" {
			what = legend
		}
		t := table{Title: fmt.Sprintf("Throughput (%s, %s)", c.Unit, what), Header: header("algorithm", "size"), Left: 2}
		prev := ""
		for _, r := range c.Rows {
			t.Rows = append(t.Rows, append([]string{blankRepeat(&prev, r.Name()), r.Size()}, cells(r, false, throughput(false))...))
		}
		d.Tables = append(d.Tables, t)
	}
	if len(c.SpeedupColumns) > 0 {
		t := table{Title: "Speedup of accelerated modes (ratio of medians; above 1.00× the accelerator is faster)", Left: 2}
		t.Header = []string{"algorithm", "size"}
		for _, sc := range c.SpeedupColumns {
			t.Header = append(t.Header, sc.Name())
		}
		prev := ""
		for _, r := range c.Rows {
			row := []string{blankRepeat(&prev, r.Name()), r.Size()}
			for _, sc := range c.SpeedupColumns {
				cell := "-"
				if v, ok := r.speedup(sc); ok {
					cell = formatSpeedup(v)
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
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
		d.Tables = append(d.Tables, t)
	}
	if len(c.Crossovers) > 0 {
		t := table{Title: "Crossover: smallest block size from which the accelerator beats cpu at every larger size",
			Header: []string{"board", "mode", "algorithm", "crossover"}, Left: 4}
		for _, x := range c.Crossovers {
			at := "never"
			if !x.Never {
				at = fmt.Sprintf("%d B", x.BlockSize)
			}
			t.Rows = append(t.Rows, []string{x.Board, x.Mode, algoLabel(x.Algorithm, x.Op, x.Threads), at})
		}
		d.Tables = append(d.Tables, t)
	}
	if len(c.Rows) > 0 {
		t := table{Title: "CPU % (median, user+sys of the process tree over wall time; 100 = one core busy)",
			Header: header("algorithm", "size"), Left: 2}
		prev := ""
		for _, r := range c.Rows {
			t.Rows = append(t.Rows, append([]string{blankRepeat(&prev, r.Name()), r.Size()},
				cells(r, false, func(cell *Cell) string { return fmt.Sprintf("%.0f%%", cell.CPUPct) })...))
		}
		d.Tables = append(d.Tables, t)
	}
	d.Tables = append(d.Tables, c.energyTables(header)...)
	if len(c.AsymRows) > 0 {
		what := "median ±spread (n)"
		if legend := precisionLegend(c.AsymRows, nil); legend != "" {
			what = legend
		}
		t := table{Title: "Asymmetric operations (ops/s, " + what + ")", Header: header("algorithm", "key"), Left: 2}
		prev := ""
		for _, r := range c.AsymRows {
			t.Rows = append(t.Rows, append([]string{blankRepeat(&prev, r.Name()), r.Size()}, cells(r, true, throughput(true))...))
		}
		d.Tables = append(d.Tables, t)
	}
	if note := c.runsNote(c.boards(), true); note != "" {
		d.Notes = append(d.Notes, note)
	}
	if cpuTimed {
		d.Notes = append(d.Notes, noteCPUTimed)
	}
	d.Notes = append(d.Notes, c.Warnings...)
	return d
}

// blankRepeat returns "" when s repeats the previous row's label, so that groups of rows read as groups.
func blankRepeat(prev *string, s string) string {
	if s == *prev {
		return ""
	}
	*prev = s
	return s
}
