package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report/stats"
	"github.com/fleetlab/fleet/store"
)

// Energy in a comparison. A point carries µJ per byte above the board's idle power where its board's sensor or
// meter could say (protocol.Point.SetEnergy); a cell shows the median of its points' figures beside MB/s and
// CPU %, "–" where the points say the energy is unknown (the reason rides in JSON), and nothing at all for a
// board without a power source: a missing figure is never printed as 0. The energy crossover is the throughput
// crossover's counterpart with lower better: from which block size the accelerator costs less energy per byte
// than the cpu path.

// markEnergyUnknown is a cell whose points say their energy is unknown.
const markEnergyUnknown = "–"

// noteEnergy explains the µJ/B columns.
const noteEnergy = "µJ/B: energy per byte above the board's idle power, median of the points (lower is better); " +
	markEnergyUnknown + ": the sensor could not say (the reason is in --format json); " +
	"energy crossover: the smallest block size from which the accelerator costs less per byte than cpu at that and every larger size"

// cellEnergy is the energy of one sample: the median µJ/B of the points that carry one, else the reasons the
// points give for not carrying one ("" when they say nothing: a board without a power source).
type cellEnergy struct {
	ujPerByte *float64
	unknown   string
}

// sampleEnergy gathers the energy of every sample of ms, by series, over the points that did not fail: the
// same points whose throughput and CPU % a cell summarizes.
func sampleEnergy(ms []store.Measurement) map[SampleKey]cellEnergy {
	values := map[SampleKey][]float64{}
	reasons := map[SampleKey][]string{}
	for _, m := range ms {
		if m.Failed {
			continue
		}
		k := keyOf(m)
		switch {
		case m.EnergyUJPerByte != nil && !math.IsNaN(*m.EnergyUJPerByte) && !math.IsInf(*m.EnergyUJPerByte, 0):
			values[k] = append(values[k], *m.EnergyUJPerByte)
		case m.EnergyUnknown != "":
			reasons[k] = addString(reasons[k], m.EnergyUnknown)
		}
	}
	out := map[SampleKey]cellEnergy{}
	for k, vs := range values {
		v := stats.Median(stats.Sorted(vs))
		out[k] = cellEnergy{ujPerByte: &v}
	}
	for k, rs := range reasons {
		if _, ok := out[k]; !ok {
			out[k] = cellEnergy{unknown: strings.Join(rs, "; ")}
		}
	}
	return out
}

// hasEnergy reports whether a cell says anything about energy: a figure, or why there is none.
func (c *Cell) hasEnergy() bool { return c != nil && (c.UJPerByte != nil || c.EnergyUnknown != "") }

// energyText prints a cell's µJ/B, "–" when unknown.
func energyText(c *Cell) string {
	if c.UJPerByte == nil {
		return markEnergyUnknown
	}
	return formatUJ(*c.UJPerByte)
}

// formatUJ prints µJ per byte with three significant digits and no exponent (0.183, 0.00214, 12.5), with a
// true minus sign for a point that cost less than the board at rest (within the sensor's noise).
func formatUJ(v float64) string {
	a := math.Abs(v)
	if a == 0 {
		return "0"
	}
	digits := min(max(2-int(math.Floor(math.Log10(a))), 0), 6)
	return strings.Replace(fmt.Sprintf("%.*f", digits, v), "-", "−", 1)
}

// rowsHaveEnergy reports whether any cell of rows (in columns cols; nil: all) says anything about energy.
func rowsHaveEnergy(rows []CompareRow, cols []int) bool {
	for _, r := range rows {
		for i, cell := range r.Cells {
			if (cols == nil || slices.Contains(cols, i)) && cell.hasEnergy() {
				return true
			}
		}
	}
	return false
}

// addEnergyCrossovers finds, per accelerated mode and algorithm of a board that also has cpu, the block size
// from which the accelerator's µJ/B is below the cpu path's at that and every larger size where both carry one;
// Never when it costs more even at the largest. A column pinned to a cluster is set against the cpu path pinned
// to the same cluster, as the throughput crossover is.
func (c *Comparison) addEnergyCrossovers() {
	type series struct {
		board, mode, cluster, alg, op string
		threads                       int
	}
	type point struct {
		size    int
		cheaper bool
	}
	cpuOf := map[Column]int{}
	for i, col := range c.Columns {
		if col.Mode == protocol.ModeCPU {
			cpuOf[Column{Board: col.Board, Cluster: col.Cluster}] = i
		}
	}
	bySeries := map[series][]point{}
	var order []series
	for i, col := range c.Columns {
		j, ok := cpuOf[Column{Board: col.Board, Cluster: col.Cluster}]
		if !ok || !protocol.IsAccelerated(col.Mode) {
			continue
		}
		for _, r := range c.Rows {
			acc, cpu := r.Cells[i], r.Cells[j]
			if acc == nil || cpu == nil || acc.UJPerByte == nil || cpu.UJPerByte == nil {
				continue
			}
			s := series{col.Board, col.Mode, col.Cluster, r.Algorithm, r.Op, r.Threads}
			if _, seen := bySeries[s]; !seen {
				order = append(order, s)
			}
			bySeries[s] = append(bySeries[s], point{r.BlockSize, *acc.UJPerByte < *cpu.UJPerByte})
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		ca := columnIndex(c.Columns, Column{Board: a.board, Mode: a.mode, Cluster: a.cluster})
		cb := columnIndex(c.Columns, Column{Board: b.board, Mode: b.mode, Cluster: b.cluster})
		if ca != cb {
			return ca < cb
		}
		return a.alg < b.alg
	})
	for _, s := range order {
		pts := bySeries[s]
		sort.Slice(pts, func(i, j int) bool { return pts[i].size < pts[j].size })
		x := Crossover{Board: s.board, Mode: s.mode, Algorithm: s.alg, Op: s.op, Threads: s.threads, Never: true,
			Cluster: s.cluster}
		for i := len(pts) - 1; i >= 0 && pts[i].cheaper; i-- {
			x.BlockSize, x.Never = pts[i].size, false
		}
		c.EnergyCrossovers = append(c.EnergyCrossovers, x)
	}
}

// energyCrossoversOf is the energy crossovers of a board's accelerators for a row's algorithm, operation and
// threads.
func (c *Comparison) energyCrossoversOf(board string, r CompareRow) []Crossover {
	var out []Crossover
	for _, x := range c.EnergyCrossovers {
		if x.Board == board && x.Algorithm == r.Algorithm && x.Op == r.Op && x.Threads == r.Threads {
			out = append(out, x)
		}
	}
	return out
}

// energyTables are the full layout's energy tables (Markdown, --wide): µJ/B per row and column, and the
// energy crossovers; none when no point of the comparison says anything about energy.
func (c *Comparison) energyTables(header func(...string) []string) []table {
	if !rowsHaveEnergy(c.Rows, nil) {
		return nil
	}
	t := table{Title: "Energy (µJ per byte above idle, median; lower is better; " + markEnergyUnknown + " unknown)",
		Header: header("algorithm", "size"), Left: 2}
	prev := ""
	for _, r := range c.Rows {
		row := []string{blankRepeat(&prev, r.Name()), r.Size()}
		for _, cell := range r.Cells {
			s := "-"
			if cell.hasEnergy() {
				s = energyText(cell)
			}
			row = append(row, s)
		}
		t.Rows = append(t.Rows, row)
	}
	out := []table{t}
	if len(c.EnergyCrossovers) > 0 {
		x := table{Title: "Energy crossover: smallest block size from which the accelerator costs less per byte than cpu at every larger size",
			Header: []string{"board", "mode", "algorithm", "crossover"}, Left: 4}
		for _, e := range c.EnergyCrossovers {
			mode := Column{Mode: e.Mode, Cluster: e.Cluster}.modeLabel()
			x.Rows = append(x.Rows, []string{e.Board, mode, algoLabel(e.Algorithm, e.Op, e.Threads), crossoverAt(e)})
		}
		out = append(out, x)
	}
	return out
}

// energyCrossoverNote is a board table's line of energy crossovers: "energy crossover over cpu: afalg 1024 B";
// "" when there is none.
func (c *Comparison) energyCrossoverNote(board string, r CompareRow) string {
	var xs []string
	for _, x := range c.energyCrossoversOf(board, r) {
		xs = append(xs, Column{Mode: x.Mode, Cluster: x.Cluster}.modeLabel()+" "+crossoverAt(x))
	}
	if len(xs) == 0 {
		return ""
	}
	return "energy crossover over cpu: " + strings.Join(xs, ", ")
}

// energyCSVHeader are the energy columns of the CSV form, only when some cell says anything about energy: a
// comparison without energy keeps its columns as they were.
func (c *Comparison) energyCSVHeader() []string {
	if !rowsHaveEnergy(c.Rows, nil) {
		return nil
	}
	return []string{"uj_per_byte", "energy_unknown"}
}

// energyCSV is a cell's energy columns: the µJ/B median, empty (never 0) when unknown, with the reason.
func (c *Comparison) energyCSV(cell *Cell) []string {
	if !rowsHaveEnergy(c.Rows, nil) {
		return nil
	}
	if cell.UJPerByte == nil {
		return []string{"", cell.EnergyUnknown}
	}
	return []string{fmtFloat(*cell.UJPerByte), ""}
}
