package validity

import (
	"fmt"
	"math"

	"github.com/fleetlab/fleet/protocol"
)

// Limits are the thresholds of a verdict, in percent.
type Limits struct {
	// BackgroundPeakPct: a point whose background CPU (the whole machine's busy time minus the agent's own
	// process tree, as a share of all cores) exceeds it is invalid. Steal time on a VM is held to it too.
	BackgroundPeakPct float64
	// BackgroundAvgPct: a point above it is suspect, and so is a board run whose mean background is above it.
	BackgroundAvgPct float64
	// ThrottlePct: a point that spent more than this share of its time below the CPU's maximum frequency
	// (cpufreq time_in_state) is invalid.
	ThrottlePct float64
}

// DefaultLimits follows sbc-bench's rule of thumb for background activity, scaled with the number of online
// cores: peak 16 %/cores and average 4 %/cores of the whole machine (2 cores: 8 % and 2 %; 8 cores: 2 % and
// 0.5 %, where sbc-bench rounds to 0 %, which no real machine meets). A 1-core board gets 16 % and 4 %. The
// throttle limit is 10 % of the point's time, whatever the core count: a 1-s point whose governor ramps up from
// idle spends a few 10-ms ticks below the maximum. cores < 1 is taken as 1.
func DefaultLimits(cores int) Limits {
	return Limits{BackgroundPeakPct: round2(protocol.DefaultBackgroundPeakPct(cores)),
		BackgroundAvgPct: round2(protocol.DefaultBackgroundAvgPct(cores)), ThrottlePct: 10}
}

// Overrides are limits set in boards.toml for a board or profile; nil keeps the default.
type Overrides struct {
	BackgroundPeakPct *float64
	BackgroundAvgPct  *float64
	ThrottlePct       *float64
}

// IsZero reports whether no limit is overridden.
func (o Overrides) IsZero() bool {
	return o.BackgroundPeakPct == nil && o.BackgroundAvgPct == nil && o.ThrottlePct == nil
}

// Apply returns l with every limit o sets replaced.
func (l Limits) Apply(o Overrides) Limits {
	if o.BackgroundPeakPct != nil {
		l.BackgroundPeakPct = *o.BackgroundPeakPct
	}
	if o.BackgroundAvgPct != nil {
		l.BackgroundAvgPct = *o.BackgroundAvgPct
	}
	if o.ThrottlePct != nil {
		l.ThrottlePct = *o.ThrottlePct
	}
	return l
}

// CheckPercent refuses a limit outside 0–100 (or not a number); the message names the accepted range.
func CheckPercent(key string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > 100 {
		return fmt.Errorf("%s %v is out of range (expected a percentage from 0 to 100)", key, v)
	}
	return nil
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// LimitsWarning is a sentence when the limits o gives a board of cores cores hold its average above its peak
// (an average set in boards.toml above the default peak for these cores, or above a peak set beside it, which
// inventory refuses when both are in one table): "" when they are consistent.
func LimitsWarning(cores int, o Overrides) string {
	l := DefaultLimits(cores).Apply(o)
	if l.BackgroundAvgPct <= l.BackgroundPeakPct {
		return ""
	}
	peak := fmt.Sprintf("the default peak limit for %d cores (16 %%/cores) is %s %%", max(cores, 1), pct(l.BackgroundPeakPct))
	if o.BackgroundPeakPct != nil {
		peak = fmt.Sprintf("its background_peak_pct is %s %%", pct(l.BackgroundPeakPct))
	}
	return fmt.Sprintf("validity.background_avg_pct %s %% is above the peak limit: %s, so a point is invalid above %s %% "+
		"before it can be suspect above %s %%; set background_peak_pct too, or lower the average",
		pct(l.BackgroundAvgPct), peak, pct(l.BackgroundPeakPct), pct(l.BackgroundAvgPct))
}
