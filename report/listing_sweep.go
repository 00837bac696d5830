package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/fleetlab/fleet/store"
)

// WriteSweep prints what fleet run shows at the end: the sweep tables as text (see WriteSweepTables), or every
// point as csv or json (see WriteResults).
func WriteSweep(w io.Writer, ms []store.Measurement, unit, format string, l Layout) error {
	f, err := ViewRun.CheckFormat(format)
	if err != nil {
		return err
	}
	if f == FormatText {
		return WriteSweepTables(w, ms, unit, l)
	}
	return WriteResults(w, ms, f)
}

// WriteSweepTables prints what `fleet run` shows at the end: the comparison of the run's measurements in the
// given layout (by default per board the vendor-guide table of each algorithm, then the boards against each
// other), throughput in unit. With no measurements it prints "no measurements".
func WriteSweepTables(w io.Writer, ms []store.Measurement, unit string, l Layout) error {
	unit, err := canonicalUnit(unit)
	if err != nil {
		return fmt.Errorf("sweep tables: %w", err)
	}
	c, err := Compare(ms, CompareOptions{Unit: unit})
	if errors.Is(err, ErrNoMeasurements) {
		if _, err := io.WriteString(w, "no measurements\n"); err != nil {
			return fmt.Errorf("sweep tables: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("sweep tables: %w", err)
	}
	c.Runs = nil // the end of fleet run: the summary above its tables names the run just measured
	if err := WriteCompareLayout(w, c, FormatText, l); err != nil {
		return fmt.Errorf("sweep tables: %w", err)
	}
	return nil
}
