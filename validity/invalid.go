package validity

import "github.com/fleetlab/fleet/protocol"

// Invalid reports whether Judge would call the point invalid, without building its reasons. The agent counts
// the repeats of an adaptive sweep with it, since invalid repeats do not count toward the precision target: it
// links this predicate, not Judge's formatting, and stays under its size budget. TestInvalidAgreesWithJudge keeps
// the two in step.
func Invalid(p protocol.Point, o Overrides) bool {
	ev := p.Evidence
	if ev == nil {
		return false
	}
	l := DefaultLimits(ev.Cores).Apply(o)
	if bg := ev.BackgroundPct; bg != nil && *bg > l.BackgroundPeakPct && !protocol.IsAccelerated(p.Mode) {
		return true
	}
	if st := ev.StealPct; st != nil && *st > l.BackgroundPeakPct {
		return true
	}
	if limit, _, ok := cpuShareLimits(p.Mode, ev, l); ok && *ev.CPUSharePct < limit {
		return true
	}
	var best *protocol.FreqPolicy
	for i := range ev.CPUFreq {
		fp := &ev.CPUFreq[i]
		if fp.Governor == "powersave" && !dynamicPowersave(fp.Driver) {
			return true
		}
		if fp.BelowMaxPct != nil && (best == nil || *fp.BelowMaxPct < *best.BelowMaxPct) {
			best = fp
		}
	}
	return best != nil && *best.BelowMaxPct > l.ThrottlePct
}
