package precision

import (
	"fmt"
	"strconv"
	"strings"
)

// The agent marks every point of an adaptive sweep with Flag, so that what was asked travels with each stored
// repeat (no schema change) and a report can tell a point that reached its target from one that stopped at
// the cap: a point whose interval is wider than the target stopped at max-repeat when it has that many
// repeats, else at the board's time budget (or the run was interrupted).
const flagPrefix = "precision-target: "

// Flag is the note on each point of a sweep with a precision target: "precision-target: ±2 % within 20 repeats".
func Flag(targetPct float64, maxRepeat int) string {
	return fmt.Sprintf("%s±%s %% within %d repeats", flagPrefix, strconv.FormatFloat(targetPct, 'f', -1, 64), maxRepeat)
}

// Target is what a sweep asked of a point, read back from its flags.
type Target struct {
	Pct       float64
	MaxRepeat int
}

// ParseFlags finds the precision target among a point's flags; ok is false when there is none.
func ParseFlags(flags []string) (Target, bool) {
	for _, f := range flags {
		rest, found := strings.CutPrefix(f, flagPrefix)
		if !found {
			continue
		}
		var t Target
		if _, err := fmt.Sscanf(rest, "±%g %% within %d repeats", &t.Pct, &t.MaxRepeat); err == nil && Check(t.Pct) == nil {
			return t, true
		}
	}
	return Target{}, false
}
