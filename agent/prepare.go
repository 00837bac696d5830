package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// quietInterval is how often the quiet wait measures background CPU: long enough for /proc/stat's 10-ms ticks
// to give a figure to the nearest percent on 2 cores.
const quietInterval = time.Second

// waitQuiet waits up to wait for the board's background CPU (everything but the agent's own tree) over one
// interval to fall to limitPct (0: the default peak for the board's cores). It returns what happened in plain
// words, for Facts.Prepared; it never fails the sweep: a board that stays busy is measured, and its points are
// judged invalid by the controller.
func waitQuiet(ctx context.Context, root string, wait time.Duration, limitPct float64) string {
	start := time.Now()
	prev := sampleEvidence(root)
	last := ""
	for {
		select {
		case <-ctx.Done():
			return "quiet wait interrupted"
		case <-time.After(quietInterval):
		}
		cur := sampleEvidence(root)
		ev := evidenceBetween(prev, cur)
		prev = cur
		if ev.BackgroundPct == nil {
			return "quiet wait: background CPU unknown (" + strings.Join(ev.Unknown, "; ") + ")"
		}
		limit := limitPct
		if limit <= 0 {
			limit = protocol.DefaultBackgroundPeakPct(ev.Cores)
		}
		waited := time.Since(start).Round(time.Second)
		last = fmt.Sprintf("background CPU %.1f %% (limit %.1f %%)", *ev.BackgroundPct, limit)
		if *ev.BackgroundPct <= limit {
			return fmt.Sprintf("quiet after %v: %s", waited, last)
		}
		if time.Since(start) >= wait {
			return fmt.Sprintf("still busy after %v: %s; measured anyway", waited, last)
		}
	}
}

// governorChange is one policy whose governor the agent set, with the one to restore.
type governorChange struct {
	path, previous string
}

// setGovernor sets gov on every cpufreq policy under root where it is available and differs, and returns what
// to restore and what happened in plain words. Where the agent may not write (not root), or the governor is not
// offered, it says so and changes nothing there.
func setGovernor(root, gov string) ([]governorChange, []string) {
	var changes []governorChange
	var notes []string
	dirs := cpufreqDirs(root)
	if len(dirs) == 0 {
		return nil, []string{"governor " + gov + ": no cpufreq policies (unknown)"}
	}
	for _, dir := range dirs {
		p := readPolicy(dir)
		if p.governor == gov {
			notes = append(notes, fmt.Sprintf("governor %s on %s already", gov, p.name))
			continue
		}
		if avail, ok := readTrim(dir + "/scaling_available_governors"); ok && !containsWord(avail, gov) {
			notes = append(notes, fmt.Sprintf("governor %s not offered on %s (available: %s); left %s", gov, p.name, avail, p.governor))
			continue
		}
		path := dir + "/scaling_governor"
		if err := os.WriteFile(path, []byte(gov), 0); err != nil {
			why := err.Error()
			if errors.Is(err, fs.ErrPermission) {
				why = "permission denied (needs root)"
			}
			notes = append(notes, fmt.Sprintf("governor %s on %s: %s; left %s", gov, p.name, why, p.governor))
			continue
		}
		changes = append(changes, governorChange{path: path, previous: p.governor})
		notes = append(notes, fmt.Sprintf("governor %s on %s for the sweep (was %s)", gov, p.name, p.governor))
	}
	return changes, notes
}

// prepareBoard does what the plan asks to prepare the board before it is probed: the governor set (restore puts
// back the previous ones; a failure to is a warning line, the points are measured already) and the quiet wait.
// For a board measured from the controller nothing is prepared, and plan loses those requests. prepared says
// what was done, in plain words, for Facts.Prepared.
func prepareBoard(ctx context.Context, plan *protocol.Plan, enc *protocol.Encoder, root string, p *probed) (prepared []string, restore func()) {
	if p != nil && p.remote != nil {
		prepared = p.remote.unprepared(plan)
	}
	restore = func() {}
	if plan.Governor != "" {
		changes, notes := setGovernor(root, plan.Governor)
		prepared = append(prepared, notes...)
		restore = func() {
			if err := restoreGovernors(changes); err != nil {
				_ = enc.Encode(protocol.TypeLog, &protocol.Log{Level: "warn", Msg: err.Error()})
			}
		}
	}
	if plan.QuietWaitS > 0 {
		prepared = append(prepared, waitQuiet(ctx, root, time.Duration(plan.QuietWaitS*float64(time.Second)), plan.QuietLimitPct))
	}
	return prepared, restore
}

// restoreGovernors puts back the governors setGovernor changed; it runs however the sweep ends (done, Ctrl-C,
// the controller gone), so a board is never left in performance mode.
func restoreGovernors(changes []governorChange) error {
	var errs []error
	for _, c := range changes {
		if err := os.WriteFile(c.path, []byte(c.previous), 0); err != nil {
			errs = append(errs, fmt.Errorf("restore governor %s in %s: %w", c.previous, c.path, err))
		}
	}
	return errors.Join(errs...)
}

func containsWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}
