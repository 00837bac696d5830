package inventory

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

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
	QuietWait         *string  `toml:"quiet_wait"` // "60s": wait up to this for background CPU to fall below the peak limit
	Governor          *string  `toml:"governor"`   // "performance": set for the sweep where the agent may, then restored
}

// validityKeys are the keys of a validity table, in the order messages list them.
var validityKeys = []string{"background_peak_pct", "background_avg_pct", "throttle_pct", "quiet_wait", "governor"}

// Preparation is how the agent prepares a board before its sweep (opt-in; the run records what it did).
type Preparation struct {
	QuietWait *time.Duration // nil: do not wait
	Governor  string         // "": leave the governor alone
}

// MaxQuietWait bounds quiet_wait and --quiet-wait: a board busy for longer is measured and judged.
const MaxQuietWait = time.Hour

// CheckQuietWait refuses a wait that is negative or longer than MaxQuietWait.
func CheckQuietWait(d time.Duration) error {
	if d < 0 || d > MaxQuietWait {
		return fmt.Errorf("quiet wait %v is out of range (expected 0s, which does not wait, to %v)", d, MaxQuietWait)
	}
	return nil
}

// CheckGovernor refuses a governor name that is not a cpufreq governor's shape.
func CheckGovernor(g string) error {
	if !governorRE.MatchString(g) {
		return fmt.Errorf("governor %q is invalid (expected a cpufreq governor name such as performance: lower-case letters, digits and _)", g)
	}
	return nil
}

var governorRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// preparation checks the quiet_wait and governor keys of a validity table.
func (b *builder) preparation(base []string, ctx string, d *validityDoc) Preparation {
	var p Preparation
	if d == nil {
		return p
	}
	if d.QuietWait != nil {
		wait, err := time.ParseDuration(*d.QuietWait)
		if err == nil {
			err = CheckQuietWait(wait)
		} else {
			err = fmt.Errorf("quiet wait %q is not a duration (expected such as \"60s\" or \"2m\")", *d.QuietWait)
		}
		if err != nil {
			b.ps.add(b.ps.pos.valueAt(appendPath(base, "validity", "quiet_wait")...), ctx, "validity.%v", err)
		} else {
			p.QuietWait = &wait
		}
	}
	if d.Governor != nil {
		if err := CheckGovernor(*d.Governor); err != nil {
			b.ps.add(b.ps.pos.valueAt(appendPath(base, "validity", "governor")...), ctx, "validity.%v", err)
		} else {
			p.Governor = *d.Governor
		}
	}
	return p
}

// PrepareFor is how board is prepared under profile: the board's own settings over the profile's.
func PrepareFor(board Board, profile Profile) Preparation {
	p := profile.Prepare
	if board.Prepare.QuietWait != nil {
		p.QuietWait = board.Prepare.QuietWait
	}
	if board.Prepare.Governor != "" {
		p.Governor = board.Prepare.Governor
	}
	return p
}

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
	o := validity.Overrides{
		BackgroundPeakPct: check("background_peak_pct", d.BackgroundPeakPct),
		BackgroundAvgPct:  check("background_avg_pct", d.BackgroundAvgPct),
		ThrottlePct:       check("throttle_pct", d.ThrottlePct),
	}
	// The average over a sweep cannot exceed its peak: an average limit above the peak limit never applies, and
	// is a mistake for one of them (a swapped pair).
	if o.BackgroundPeakPct != nil && o.BackgroundAvgPct != nil && *o.BackgroundAvgPct > *o.BackgroundPeakPct {
		b.ps.add(b.ps.pos.valueAt(appendPath(base, "validity", "background_avg_pct")...), ctx,
			"validity.background_avg_pct %g is above validity.background_peak_pct %g (expected an average limit at most the peak limit)",
			*o.BackgroundAvgPct, *o.BackgroundPeakPct)
		o.BackgroundAvgPct = nil
	}
	return o
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

// maxDefaultPeakPct is the largest default peak limit, a 1-core board's (protocol.DefaultBackgroundPeakPct):
// an average limit above it is above the peak limit on every board that keeps the default peak.
var maxDefaultPeakPct = protocol.DefaultBackgroundPeakPct(1)

// checkValidityLayers refuses an average limit above the peak limit that applies with it where the two come
// from different places, which validityLimits cannot see in one table: a board's average over a profile's peak
// (ValidityFor takes the board's own limits over the profile's), a board's peak under a profile's average, and
// an average set alone above every default peak. Under such a pair the average limit never applies. The
// message is at the board's key (the default's case: at the key) and names the other key's line and value.
func (b *builder) checkValidityLayers(boards map[string]boardDoc, profiles map[string]profileDoc) {
	value := func(v *float64) (float64, bool) {
		if v == nil || validity.CheckPercent("", *v) != nil {
			return 0, false // absent, or refused already
		}
		return *v, true
	}
	where := func(path ...string) string {
		line, _ := b.ps.pos.lineCol(b.ps.pos.valueAt(path...))
		return b.ps.file + ":" + strconv.Itoa(line)
	}
	alone := func(base []string, d *validityDoc) {
		if d == nil {
			return
		}
		avg, okAvg := value(d.BackgroundAvgPct)
		if _, okPeak := value(d.BackgroundPeakPct); okAvg && !okPeak && avg > maxDefaultPeakPct {
			b.ps.add(b.ps.pos.valueAt(appendPath(base, "validity", "background_avg_pct")...), context(base),
				"validity.background_avg_pct %g is above the default validity.background_peak_pct, at most %g (16 %%/cores) "+
					"(expected an average limit at most the peak limit: set background_peak_pct too, or lower the average)", avg, maxDefaultPeakPct)
		}
	}
	for _, name := range sortedKeys(boards) {
		alone([]string{"boards", name}, boards[name].Validity)
	}
	for _, name := range sortedKeys(profiles) {
		alone([]string{"profiles", name}, profiles[name].Validity)
	}
	for _, bname := range sortedKeys(boards) {
		bd := boards[bname].Validity
		if bd == nil {
			continue
		}
		base := []string{"boards", bname}
		bAvg, okBAvg := value(bd.BackgroundAvgPct)
		bPeak, okBPeak := value(bd.BackgroundPeakPct)
		for _, pname := range sortedKeys(profiles) {
			pd := profiles[pname].Validity
			if pd == nil {
				continue
			}
			pbase := []string{"profiles", pname}
			pAvg, okPAvg := value(pd.BackgroundAvgPct)
			pPeak, okPPeak := value(pd.BackgroundPeakPct)
			switch {
			case okBAvg && !okBPeak && okPPeak && bAvg > pPeak:
				b.ps.add(b.ps.pos.valueAt(appendPath(base, "validity", "background_avg_pct")...), context(base),
					"validity.background_avg_pct %g is above profile %q's validity.background_peak_pct %g (%s), which applies with it under that profile "+
						"(expected an average limit at most the peak limit)", bAvg, pname, pPeak, where(appendPath(pbase, "validity", "background_peak_pct")...))
			case okBPeak && !okBAvg && okPAvg && pAvg > bPeak:
				b.ps.add(b.ps.pos.valueAt(appendPath(base, "validity", "background_peak_pct")...), context(base),
					"validity.background_peak_pct %g is below profile %q's validity.background_avg_pct %g (%s), which applies with it under that profile "+
						"(expected an average limit at most the peak limit)", bPeak, pname, pAvg, where(appendPath(pbase, "validity", "background_avg_pct")...))
			}
		}
	}
}
