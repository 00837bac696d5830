package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// writeCompareCSV prints one line per cell (long form), which spreadsheets pivot easily. value is in unit; median,
// min and max are in base_unit (B/s or ops/s). Speedups over cpu and soft ride on the accelerated cells.
func writeCompareCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"algorithm", "op", "threads", "block_size", "key_bits", "curve", "board", "mode", "unit",
		"value", "base_unit", "median", "min", "max", "spread", "n", "cpu_pct", "cpu_timed", "speedup_vs_cpu", "speedup_vs_soft"},
		append(precisionCSVHeader, c.energyCSVHeader()...)...))
	rows := append(append([]CompareRow(nil), c.Rows...), c.AsymRows...)
	for _, r := range rows {
		unit, base := c.Unit, "B/s"
		if r.BlockSize == 0 {
			unit, base = "ops/s", "ops/s"
		}
		for _, cell := range r.Cells {
			if cell == nil {
				continue
			}
			vsCPU, vsSoft := "", ""
			for _, s := range r.Speedups {
				if s.Board != cell.Board || s.Mode != cell.Mode {
					continue
				}
				if s.Over == "cpu" {
					vsCPU = fmtFloat(s.Ratio)
				} else {
					vsSoft = fmtFloat(s.Ratio)
				}
			}
			cw.Write(append([]string{r.Algorithm, r.Op, strconv.Itoa(r.Threads), strconv.Itoa(r.BlockSize),
				strconv.Itoa(r.KeyBits), r.Curve, cell.Board, cell.Mode, unit, fmtFloat(cell.Value), base,
				fmtFloat(cell.Median), fmtFloat(cell.Min), fmtFloat(cell.Max), fmtFloat(cell.Spread),
				strconv.Itoa(cell.N), fmtFloat(cell.CPUPct), strconv.FormatBool(cell.CPUTimed), vsCPU, vsSoft},
				append(precisionCSV(cell.Precision), c.energyCSV(cell)...)...))
		}
	}
	cw.Flush()
	return cw.Error()
}

// fmtFloat prints a number for machines: shortest exact form, no exponent for ordinary magnitudes.
func fmtFloat(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// writeRegressCSV prints one line per series; medians are in base_unit (B/s or ops/s). A board without a
// baseline gets one line with only its name, the verdict "no baseline" and the reason.
func writeRegressCSV(w io.Writer, r *Regression) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"board", "mode", "algorithm", "op", "threads", "block_size", "key_bits", "curve", "base_unit",
		"base_median", "base_spread", "base_n", "cur_median", "cur_spread", "cur_n", "change", "p", "verdict", "notes"})
	side := func(s *Summary) []string {
		if s == nil {
			return []string{"", "", ""}
		}
		return []string{fmtFloat(s.Median), fmtFloat(s.Spread()), strconv.Itoa(s.N)}
	}
	for _, row := range r.Rows {
		base := "B/s"
		switch {
		case lowerBetter(r.Metric):
			base = UnitEnergy
		case row.Asym():
			base = "ops/s"
		}
		rec := []string{row.Board, row.Mode, row.Algorithm, row.Op, strconv.Itoa(row.Threads), strconv.Itoa(row.BlockSize),
			strconv.Itoa(row.KeyBits), row.Curve, base}
		rec = append(rec, side(row.Base)...)
		rec = append(rec, side(row.Cur)...)
		rec = append(rec, fmtFloat(row.Change), fmtFloat(row.P), row.Verdict, strings.Join(row.Notes, "; "))
		cw.Write(rec)
	}
	for _, nb := range r.NoBaseline {
		rec := []string{nb.Board, "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", VerdictNoBaseline, nb.Reason}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
