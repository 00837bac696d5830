package validity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// Verdict is ok, suspect or invalid (protocol.Validity*) with the reasons in plain words; Validity is "" when
// there was no evidence to judge (an old agent, an import).
type Verdict struct {
	Validity string
	Reasons  []string
}

// worse raises v to level with a reason.
func (v *Verdict) worse(level, reason string) {
	if rank(level) > rank(v.Validity) {
		v.Validity = level
	}
	v.Reasons = append(v.Reasons, reason)
}

func rank(v string) int {
	switch v {
	case protocol.ValidityInvalid:
		return 3
	case protocol.ValiditySuspect:
		return 2
	case protocol.ValidityOK:
		return 1
	}
	return 0
}

// Worse reports whether verdict a is worse than b (invalid > suspect > ok > not judged).
func Worse(a, b string) bool { return rank(a) > rank(b) }

// Judge gives a point its verdict from its evidence, with DefaultLimits for the board's online cores and o
// applied over them:
//
//   - background CPU above BackgroundPeakPct: invalid; above BackgroundAvgPct: suspect. For modes that hand work
//     to the kernel (devcrypto, afalg, kcapi, kcapi:DRIVER whatever the driver, engines) the kernel's crypto
//     workers (cryptd, crypto_engine) count as background, so there it is at most suspect;
//   - steal time above BackgroundPeakPct: invalid; above BackgroundAvgPct: suspect;
//   - a CPU-timed capture's CPU share (an import's only evidence), in soft and cpu, whose work is all user time:
//     the share of its one core the process lacked is background CPU in one core's terms, so it is held to the
//     background limits times the cores (a capture names none: 1). Below 100 − BackgroundPeakPct (84 % by
//     default): invalid; below 100 − BackgroundAvgPct (96 %): suspect. Modes whose work is the kernel's or a
//     device's (devcrypto, afalg, kcapi, engines, providers) spend little user time by design: not judged;
//   - more than ThrottlePct of the point's time below the CPU's maximum frequency, in the policy that was
//     least below it (the one that most likely ran the point): invalid;
//   - governor powersave (except intel_pstate and amd-pstate, whose powersave still scales up): invalid;
//   - scaling_max_freq below cpuinfo_max_freq, a temperature at or above a trip point, swapping during the
//     point, offline CPUs: suspect.
//
// Whatever the evidence lacks is not judged.
func Judge(p protocol.Point, o Overrides) Verdict {
	ev := p.Evidence
	if ev == nil {
		return Verdict{}
	}
	l := DefaultLimits(ev.Cores).Apply(o)
	v := Verdict{Validity: protocol.ValidityOK}
	if bg := ev.BackgroundPct; bg != nil {
		hard := protocol.ValidityInvalid
		note := ""
		if protocol.IsAccelerated(p.Mode) || protocol.IsKCAPIMode(p.Mode) {
			hard, note = protocol.ValiditySuspect, "; kernel crypto workers count as background in "+p.Mode
		}
		switch {
		case *bg > l.BackgroundPeakPct:
			v.worse(hard, fmt.Sprintf("background CPU %s %% (limit %s %%%s)", pct(*bg), pct(l.BackgroundPeakPct), note))
		case *bg > l.BackgroundAvgPct:
			v.worse(protocol.ValiditySuspect, fmt.Sprintf("background CPU %s %% (suspect above %s %%%s)", pct(*bg),
				pct(l.BackgroundAvgPct), note))
		}
	}
	if st := ev.StealPct; st != nil {
		switch {
		case *st > l.BackgroundPeakPct:
			v.worse(protocol.ValidityInvalid, fmt.Sprintf("steal %s %% (limit %s %%)", pct(*st), pct(l.BackgroundPeakPct)))
		case *st > l.BackgroundAvgPct:
			v.worse(protocol.ValiditySuspect, fmt.Sprintf("steal %s %% (suspect above %s %%)", pct(*st), pct(l.BackgroundAvgPct)))
		}
	}
	judgeCPUShare(&v, p.Mode, ev, l)
	judgeFreq(&v, ev.CPUFreq, l)
	for _, t := range ev.Thermal {
		if t.AfterMC != nil && t.TripMC != nil && *t.AfterMC >= *t.TripMC {
			name := t.Name
			if t.Type != "" {
				name += " (" + t.Type + ")"
			}
			v.worse(protocol.ValiditySuspect, fmt.Sprintf("%s at %s °C, trip point %s °C", name,
				pct(float64(*t.AfterMC)/1000), pct(float64(*t.TripMC)/1000)))
		}
	}
	if ev.SwapIn != nil && ev.SwapOut != nil && *ev.SwapIn+*ev.SwapOut > 0 {
		v.worse(protocol.ValiditySuspect, fmt.Sprintf("swapping: %d pages in, %d out", *ev.SwapIn, *ev.SwapOut))
	}
	if ev.OfflineCPUs != "" {
		v.worse(protocol.ValiditySuspect, "CPUs "+ev.OfflineCPUs+" offline")
	}
	return v
}

// cpuShareLimits are the CPU shares below which a point of mode is invalid and suspect (see Judge), and false when
// the CPU share does not judge mode.
func cpuShareLimits(mode string, ev *protocol.Evidence, l Limits) (invalid, suspect float64, ok bool) {
	if ev.CPUSharePct == nil || protocol.IsAccelerated(mode) || protocol.IsKCAPIMode(mode) {
		return 0, 0, false
	}
	cores := float64(max(ev.Cores, 1))
	return 100 - math.Min(l.BackgroundPeakPct*cores, 100), 100 - math.Min(l.BackgroundAvgPct*cores, 100), true
}

// judgeCPUShare judges a CPU-timed capture's CPU share: the process did not have the CPU because others did.
func judgeCPUShare(v *Verdict, mode string, ev *protocol.Evidence, l Limits) {
	invalid, suspect, ok := cpuShareLimits(mode, ev, l)
	if !ok {
		return
	}
	switch share := *ev.CPUSharePct; {
	case share < invalid:
		v.worse(protocol.ValidityInvalid, fmt.Sprintf("had the CPU %s %% of the time: the machine was busy (invalid below %s %%)",
			pct(share), pct(invalid)))
	case share < suspect:
		v.worse(protocol.ValiditySuspect, fmt.Sprintf("had the CPU %s %% of the time (suspect below %s %%)", pct(share), pct(suspect)))
	}
}

// judgeFreq judges governors, capped maxima and throttling.
func judgeFreq(v *Verdict, policies []protocol.FreqPolicy, l Limits) {
	var best *protocol.FreqPolicy
	for i := range policies {
		fp := &policies[i]
		if fp.Governor == "powersave" && !dynamicPowersave(fp.Driver) {
			v.worse(protocol.ValidityInvalid, "governor powersave ("+fp.Policy+")")
		}
		if fp.MaxKHz > 0 && fp.CPUInfoMaxKHz > 0 && fp.MaxKHz < fp.CPUInfoMaxKHz {
			v.worse(protocol.ValiditySuspect, fmt.Sprintf("scaling_max_freq %s MHz below the CPU's %s MHz (%s)",
				pct(float64(fp.MaxKHz)/1000), pct(float64(fp.CPUInfoMaxKHz)/1000), fp.Policy))
		}
		if fp.BelowMaxPct != nil && (best == nil || *fp.BelowMaxPct < *best.BelowMaxPct) {
			best = fp
		}
	}
	if best != nil && *best.BelowMaxPct > l.ThrottlePct {
		v.worse(protocol.ValidityInvalid, fmt.Sprintf("throttled: %s %% of the time below %s MHz (limit %s %%)",
			pct(*best.BelowMaxPct), pct(float64(best.CPUInfoMaxKHz)/1000), pct(l.ThrottlePct)))
	}
}

// dynamicPowersave reports drivers whose "powersave" governor still runs at full speed under load.
func dynamicPowersave(driver string) bool {
	return driver == "intel_pstate" || strings.HasPrefix(driver, "amd-pstate")
}

// JudgeRun gives a board run its verdict from its points' verdicts (set by Judge); see Tally.
func JudgeRun(points []protocol.Point, o Overrides) Verdict {
	var t Tally
	for _, p := range points {
		t.Add(p)
	}
	return t.Verdict(o)
}

// Tally gathers a board run's points one at a time, so that a run's verdict needs no list of its points.
// The zero value is ready to use.
type Tally struct {
	counts      map[string]int
	firstReason map[string]string
	worst       string
	bgSum       float64
	bgN, cores  int
}

// Add counts a judged point; points without a verdict are left out.
func (t *Tally) Add(p protocol.Point) {
	if p.Validity == "" {
		return
	}
	if t.counts == nil {
		t.counts, t.firstReason = map[string]int{}, map[string]string{}
	}
	t.counts[p.Validity]++
	if _, ok := t.firstReason[p.Validity]; !ok && len(p.ValidityReasons) > 0 {
		t.firstReason[p.Validity] = p.ValidityReasons[0]
	}
	if rank(p.Validity) > rank(t.worst) {
		t.worst = p.Validity
	}
	if ev := p.Evidence; ev != nil && ev.BackgroundPct != nil && !protocol.IsAccelerated(p.Mode) {
		t.bgSum += *ev.BackgroundPct
		t.bgN++
		t.cores = ev.Cores
	}
}

// Verdict is the worst of the points' verdicts, with a count per verdict as reasons, and suspect when the mean
// background CPU over the points (unaccelerated modes) is above BackgroundAvgPct. A run without judged points
// is not judged ("").
func (t *Tally) Verdict(o Overrides) Verdict {
	v := Verdict{Validity: t.worst}
	total := t.counts[protocol.ValidityOK] + t.counts[protocol.ValiditySuspect] + t.counts[protocol.ValidityInvalid]
	for _, level := range []string{protocol.ValidityInvalid, protocol.ValiditySuspect} {
		if n := t.counts[level]; n > 0 {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%d of %d points %s (first: %s)", n, total, level, t.firstReason[level]))
		}
	}
	if t.bgN > 0 {
		l := DefaultLimits(t.cores).Apply(o)
		if mean := t.bgSum / float64(t.bgN); mean > l.BackgroundAvgPct {
			v.worse(protocol.ValiditySuspect, fmt.Sprintf("mean background CPU %s %% over %d points (suspect above %s %%)",
				pct(mean), t.bgN, pct(l.BackgroundAvgPct)))
		}
	}
	return v
}

// pct formats a figure for a reason: whole numbers plainly, others with one decimal.
func pct(v float64) string {
	if math.Abs(v-math.Round(v)) < 0.05 {
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
