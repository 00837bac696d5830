package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteRegression renders a regression as text, markdown, csv, json or junit.
func WriteRegression(w io.Writer, r *Regression, format string) error {
	f, err := ViewRegress.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText:
		d := r.document()
		d.Width = TextWidth
		err = d.writeText(w)
	case FormatMarkdown:
		err = r.document().writeMarkdown(w)
	case FormatCSV:
		err = writeRegressCSV(w, r)
	case FormatJSON:
		err = writeJSON(w, r)
	case FormatJUnit:
		return WriteJUnit(w, r)
	default:
		return fmt.Errorf("regress: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write regression: %w", err)
	}
	return nil
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
