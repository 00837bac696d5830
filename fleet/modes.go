package fleet

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// ErrNoOpenSSL means the board's openssl cannot be run (not found, not executable, version unreadable), so no
// openssl mode can be measured. It is a fault of the board's set-up, not a missing accelerator, so the board is
// not ok even when kcapi measured something. The error's text is the probe's reason, naming the path
// ("openssl /opt/bin/openssl: not found").
var ErrNoOpenSSL = errors.New("no usable openssl")

// ErrNothingMeasured means a board ended without one good point of what it was asked to measure: every mode
// unavailable, every algorithm skipped, or every point failed. The error lists why.
var ErrNothingMeasured = errors.New("nothing measured")

type noOpenSSLError struct{ reason string }

func (e *noOpenSSLError) Error() string        { return e.reason }
func (e *noOpenSSLError) Is(target error) bool { return target == ErrNoOpenSSL }

// ModeReport is what became of every mode on a board, for a summary that hides nothing: what was measured, what
// the board cannot do and why, and what it can do but was not asked to.
type ModeReport struct {
	Measured    []string            // asked for, with at least one good point (run only), in plan order
	Unmeasured  []string            // asked for and available, yet no good point: every algorithm skipped or failed (run only)
	Available   []string            // asked for and available (what a run measures), in plan order
	Unavailable []protocol.ModeFact // every mode the probe found unavailable, with its reason, asked for or not
	NotAsked    []string            // available, but the board, the profile or --modes left them out
	Offload     []Offload           // the board's offload drivers (protocol.IsOffload), in /proc/crypto order
}

// Offload is one offload driver of a board, and whether the modes asked for measure it (kcapi:DRIVER or kcapi:all).
type Offload struct {
	Driver string
	Asked  bool
}

// planModes are the modes to sweep when the board, the profile and the command line name none: every mode the
// probe reports, available or not, so that the unavailable ones are recorded as skips with the probe's reason.
func planModes(f *protocol.Facts) []string {
	modes := make([]string, 0, len(f.Modes))
	for _, m := range f.Modes {
		if !slices.Contains(modes, m.Mode) {
			modes = append(modes, m.Mode)
		}
	}
	return modes
}

// modeReport compares what was asked (modes, already resolved) with what the probe found and, for a run, the
// good points each mode got (nil for boards check).
func modeReport(f *protocol.Facts, modes []string, good map[string]int) ModeReport {
	var r ModeReport
	avail := map[string]bool{}
	for _, m := range f.Modes {
		switch {
		case !m.Available:
			r.Unavailable = append(r.Unavailable, m)
		case !slices.Contains(modes, m.Mode):
			r.NotAsked = append(r.NotAsked, m.Mode)
		default:
			avail[m.Mode] = true
		}
	}
	for _, d := range protocol.OffloadDrivers(f.ProcCrypto) {
		_, asked := protocol.PlanMode(modes, protocol.KCAPIPrefix+d)
		r.Offload = append(r.Offload, Offload{Driver: d, Asked: asked})
	}
	for _, m := range modes {
		if !avail[m] {
			if good[m] > 0 { // measured though the probe did not know it: say so rather than hide it
				r.Measured = append(r.Measured, m)
			}
			continue
		}
		r.Available = append(r.Available, m)
		switch {
		case good == nil:
		case good[m] > 0:
			r.Measured = append(r.Measured, m)
		default:
			r.Unmeasured = append(r.Unmeasured, m)
		}
	}
	return r
}

// opensslProblem is ErrNoOpenSSL when modes need openssl (any but kcapi, kcapi:DRIVER, kcapi:all) and the probe says it cannot be run.
// The probe reports cpu available exactly when openssl runs, with the reason when it does not.
func opensslProblem(f *protocol.Facts, modes []string) error {
	if !slices.ContainsFunc(modes, func(m string) bool { return !protocol.IsKCAPIMode(m) }) {
		return nil
	}
	for _, m := range f.Modes {
		if m.Mode == protocol.ModeCPU && !m.Available {
			return &noOpenSSLError{reason: m.Reason}
		}
	}
	return nil
}

// nothingAvailable is ErrNothingMeasured when none of modes is available on the board: `boards check` says so
// before a run finds out.
func nothingAvailable(r ModeReport, modes []string) error {
	if len(r.Available) > 0 || len(modes) == 0 {
		return nil
	}
	return fmt.Errorf("%w: none of the modes asked for is available: %s", ErrNothingMeasured, unavailableList(r.Unavailable, modes))
}

// nothingMeasured is ErrNothingMeasured with the reasons, when a sweep that asked for something got no good point.
func nothingMeasured(plan protocol.Plan, good map[string]int, failed []pointFailure, skipped []protocol.Skip) error {
	for _, n := range good {
		if n > 0 {
			return nil
		}
	}
	if len(plan.Modes) == 0 || len(plan.Algorithms) == 0 {
		return nil
	}
	var why []string
	// modes sharing a reason are named together: "soft, cpu: openssl /x: not found"
	byReason := map[string][]string{}
	var order []string
	for _, s := range skipped {
		what := s.Mode
		if s.Algorithm != "" {
			what += " " + s.Algorithm
		}
		if _, ok := byReason[s.Reason]; !ok {
			order = append(order, s.Reason)
		}
		byReason[s.Reason] = append(byReason[s.Reason], what)
	}
	for _, reason := range order {
		why = append(why, strings.Join(byReason[reason], ", ")+": "+reason)
	}
	if len(failed) > 0 {
		why = append(why, failedClause(failed)) // what failed and why: "point(s) failed" alone sent people to results
	}
	if len(why) == 0 {
		why = append(why, "the agent sent no point and no reason")
	}
	return fmt.Errorf("%w: %s", ErrNothingMeasured, strings.Join(why, "; "))
}

// unavailableList is "devcrypto (no /dev/crypto), afalg (…)" for the modes asked for.
func unavailableList(un []protocol.ModeFact, modes []string) string {
	var parts []string
	for _, m := range un {
		if slices.Contains(modes, m.Mode) {
			parts = append(parts, m.Mode+" ("+m.Reason+")")
		}
	}
	for _, m := range modes {
		if !slices.ContainsFunc(un, func(f protocol.ModeFact) bool { return f.Mode == m }) {
			parts = append(parts, m+" (the probe does not know it)")
		}
	}
	return strings.Join(parts, ", ")
}

// unavailableModes are the modes the probe found unavailable on the board.
func unavailableModes(f *protocol.Facts) map[string]bool {
	m := map[string]bool{}
	for _, mf := range f.Modes {
		if !mf.Available {
			m[mf.Mode] = true
		}
	}
	return m
}

// withoutModes is plan without the modes in drop.
func withoutModes(plan protocol.Plan, drop map[string]bool) protocol.Plan {
	plan.Modes = slices.DeleteFunc(slices.Clone(plan.Modes), func(m string) bool { return drop[m] })
	return plan
}
