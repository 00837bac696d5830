package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteCompare renders a comparison as text (in the default Layout), markdown, csv, json or html.
func WriteCompare(w io.Writer, c *Comparison, format string) error {
	return WriteCompareLayout(w, c, format, Layout{})
}

// WriteCompareLayout renders a comparison as text in the given layout, or as markdown, csv, json (always the
// full tables) or html (its board-against-board tables at l.Size).
func WriteCompareLayout(w io.Writer, c *Comparison, format string, l Layout) error {
	f, err := ViewCompare.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText:
		if l.Wide {
			err = c.document().writeText(w)
			break
		}
		var d document
		if d, err = c.compactDocument(l); err != nil {
			return fmt.Errorf("write comparison: %w", err)
		}
		err = d.writeText(w)
	case FormatMarkdown:
		err = c.document().writeMarkdown(w)
	case FormatCSV:
		err = writeCompareCSV(w, c)
	case FormatJSON:
		err = writeJSON(w, c)
	case FormatHTML:
		err = WriteHTML(w, HTMLReport{Title: "fleet compare", Comparison: c, Size: l.Size})
	default:
		return fmt.Errorf("compare: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

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
