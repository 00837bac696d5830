package inventory

import "github.com/fleetlab/fleet/validity"

// validityDoc is a board's or profile's validity table: the limits of the verdict on its points, in percent.
//
//	[boards.am64x.validity]
//	background_peak_pct = 4   # background CPU above it: invalid (default 16 %/cores)
//	background_avg_pct = 1    # above it: suspect (default 4 %/cores)
//	throttle_pct = 20         # time below the maximum frequency above it: invalid (default 10 %)
type validityDoc struct {
	BackgroundPeakPct *float64 `toml:"background_peak_pct"`
	BackgroundAvgPct  *float64 `toml:"background_avg_pct"`
	ThrottlePct       *float64 `toml:"throttle_pct"`
}

// validityKeys are the keys of a validity table, in the order messages list them.
var validityKeys = []string{"background_peak_pct", "background_avg_pct", "throttle_pct"}

// validityLimits checks a validity table: each limit a percentage from 0 to 100, reported at its value.
func (b *builder) validityLimits(base []string, ctx string, d *validityDoc) validity.Overrides {
	if d == nil {
		return validity.Overrides{}
	}
	check := func(key string, v *float64) *float64 {
		if v == nil {
			return nil
		}
		if err := validity.CheckPercent("validity."+key, *v); err != nil {
			b.ps.add(b.ps.pos.valueAt(appendPath(base, "validity", key)...), ctx, "%v", err)
			return nil
		}
		c := *v
		return &c
	}
	return validity.Overrides{
		BackgroundPeakPct: check("background_peak_pct", d.BackgroundPeakPct),
		BackgroundAvgPct:  check("background_avg_pct", d.BackgroundAvgPct),
		ThrottlePct:       check("throttle_pct", d.ThrottlePct),
	}
}

// ValidityFor is the limits that apply to board under profile: the board's own over the profile's.
func ValidityFor(board Board, profile Profile) validity.Overrides {
	o := profile.Validity
	if board.Validity.BackgroundPeakPct != nil {
		o.BackgroundPeakPct = board.Validity.BackgroundPeakPct
	}
	if board.Validity.BackgroundAvgPct != nil {
		o.BackgroundAvgPct = board.Validity.BackgroundAvgPct
	}
	if board.Validity.ThrottlePct != nil {
		o.ThrottlePct = board.Validity.ThrottlePct
	}
	return o
}
