package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Throughput units. kB/s is 1000 bytes per second, as OpenSSL prints it.
const (
	UnitKBps   = "kB/s"
	UnitMBps   = "MB/s"
	UnitMiBps  = "MiB/s"
	UnitMbitps = "Mbit/s"
)

// DefaultUnit is the throughput unit used when none is chosen.
const DefaultUnit = UnitMBps

// Units lists the throughput units a caller may choose.
var Units = []string{UnitKBps, UnitMBps, UnitMiBps, UnitMbitps}

// bytesPerUnit is how many bytes per second one unit is.
func bytesPerUnit(unit string) (float64, error) {
	switch strings.ToLower(unit) {
	case "", "mb/s":
		return 1e6, nil
	case "kb/s":
		return 1e3, nil
	case "mib/s":
		return 1 << 20, nil
	case "mbit/s", "mb/s (bits)", "mbps":
		return 1e6 / 8, nil
	}
	return 0, fmt.Errorf("unknown unit %q (want one of %s)", unit, strings.Join(Units, ", "))
}

// canonicalUnit returns the unit's spelling in Units.
func canonicalUnit(unit string) (string, error) {
	if _, err := bytesPerUnit(unit); err != nil {
		return "", err
	}
	for _, u := range Units {
		if strings.EqualFold(u, unit) {
			return u, nil
		}
	}
	if strings.EqualFold(unit, "mbps") {
		return UnitMbitps, nil
	}
	return DefaultUnit, nil
}

// inUnit converts bytes per second to the unit (which must be valid).
func inUnit(bps float64, unit string) float64 {
	f, err := bytesPerUnit(unit)
	if err != nil {
		f = 1e6
	}
	return bps / f
}

// formatValue prints a throughput with about four significant digits, never in exponent form.
func formatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// formatPct prints a fraction as a whole percentage: 0.034 → "3%".
func formatPct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// formatChange prints a relative change with a true minus sign: −25.0%, +3.1%.
func formatChange(f float64) string {
	s := fmt.Sprintf("%+.1f%%", 100*f)
	return strings.Replace(s, "-", "−", 1)
}

// formatSpeedup prints a ratio with two decimals: 0.81×.
func formatSpeedup(r float64) string { return fmt.Sprintf("%.2f×", r) }

// formatCell prints a summary as "median ±spread (n)" in the unit, "median (1)" for a single sample; ops/s for
// asymmetric samples.
func formatCell(s Summary, unit string, asym bool) string {
	v := s.Median
	if !asym {
		v = inUnit(v, unit)
	}
	if s.N < 2 {
		return fmt.Sprintf("%s (%d)", formatValue(v), s.N) // one sample has no spread: "±0%" would claim one
	}
	return fmt.Sprintf("%s ±%s (%d)", formatValue(v), formatPct(s.Spread()), s.N)
}

// formatThroughput prints a median with its unit: "120.5 MB/s", "3125 ops/s".
func formatThroughput(v float64, unit string, asym bool) string {
	if asym {
		return formatValue(v) + " ops/s"
	}
	return formatValue(inUnit(v, unit)) + " " + unit
}

// CheckUnit returns an error naming the accepted units when unit is not one of Units (in any case).
func CheckUnit(unit string) error {
	_, err := canonicalUnit(unit)
	return err
}

// fmtFloat prints a number for machines: shortest exact form, no exponent for ordinary magnitudes.
func fmtFloat(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
