package report

import (
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/report/stats"
)

// The verdict on one series: Regress (regress.go) pairs each baseline sample with the run's, and judge weighs
// the pair alone, by the U test at α and the threshold, or where no outcome of the U test can reach α by the
// range rule (regress_outside.go); Confirm judges a re-measure with it too, so both read the same.

// judge gives the verdict on one series present in the baseline; cur may be nil, and inv holds the run's points
// of the series that were judged invalid (nil when none).
func judge(b, c, inv *Sample, opts RegressOptions) RegressRow {
	bs := b.Summary()
	row := RegressRow{SampleKey: b.Key, Base: &bs, P: 1}
	if b.Failed > 0 {
		row.Notes = append(row.Notes, fmt.Sprintf("%d failed baseline points excluded", b.Failed))
	}
	if inv != nil && (c == nil || len(c.Values) == 0) {
		// the board was busy, throttled or hot: its numbers say nothing about the code, either way
		row.Verdict, row.Delta = VerdictInvalid, "invalid"
		row.Notes = append(row.Notes, fmt.Sprintf("%d points invalid: %s", inv.Invalid, strings.Join(inv.InvalidReasons, "; ")))
		return row
	}
	if c == nil || len(c.Values) == 0 {
		row.Verdict, row.Delta = VerdictMissing, "missing"
		if c != nil {
			note := fmt.Sprintf("all %d points failed", c.Failed)
			if len(c.Errors) > 0 {
				note += ": " + c.Errors[0]
			}
			row.Notes = append(row.Notes, note)
		}
		return row
	}
	if c.Failed > 0 {
		row.Notes = append(row.Notes, fmt.Sprintf("%d failed points excluded", c.Failed))
	}
	if inv != nil {
		row.Notes = append(row.Notes, fmt.Sprintf("%d invalid points excluded: %s", inv.Invalid, strings.Join(inv.InvalidReasons, "; ")))
	}
	cs := c.Summary()
	row.Cur = &cs
	if (b.CPUTimed || c.CPUTimed) && !b.Key.Asym() {
		row.Notes = append(row.Notes, "timed on CPU seconds: throughput is a wall-time estimate")
	}
	if bs.Median > 0 {
		row.Change = cs.Median/bs.Median - 1
	}
	row.P = stats.UTest(b.Values, c.Values)
	significant := row.P < opts.Alpha
	row.Delta = "~"
	if significant {
		row.Delta = formatChange(row.Change)
	}
	// Too few when no outcome of these sample sizes could reach α: 4 + 4 can, and so can 2 repeats against a
	// pooled window of 8 or more, which a rule of 4 per side would call unconfirmed for ever.
	// There the range rule (regress_outside.go) still calls a run outside everything the baseline measured.
	tooFew := stats.MinP(bs.N, cs.N) >= opts.Alpha
	side, rangeP := 0, 1.0
	if tooFew {
		side, rangeP = beyondRange(b.Values, c.Values, opts.Threshold, opts.Alpha)
	}
	gain, better := orient(opts.Metric, row.Change, side)
	switch {
	case gain < -opts.Threshold && significant:
		row.Verdict = VerdictRegressed
	case side != 0:
		row.Verdict, row.Delta, row.P = VerdictRegressed, formatChange(row.Change), rangeP
		if better > 0 {
			row.Verdict = VerdictImproved
		}
		row.Notes = append(row.Notes, rangeNote(side, bs.N, cs.N, opts.Alpha))
	case gain < -opts.Threshold && tooFew:
		row.Verdict, row.Delta = VerdictUnconfirmed, formatChange(row.Change)+"?"
		row.Notes = append(row.Notes, warnTooFew)
	case gain > opts.Threshold && significant:
		row.Verdict = VerdictImproved
	case gain > opts.Threshold && tooFew:
		row.Verdict, row.Delta = VerdictMaybeBetter, formatChange(row.Change)+"?"
		row.Notes = append(row.Notes, warnTooFew)
	default:
		row.Verdict = VerdictUnchanged
		if tooFew {
			row.Notes = append(row.Notes, warnTooFew)
		} else if significant {
			row.Notes = append(row.Notes, fmt.Sprintf("significant but within the %s threshold", formatPct(opts.Threshold)))
		}
	}
	return row
}
