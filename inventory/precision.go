package inventory

import (
	"fmt"
	"time"

	"github.com/fleetlab/fleet/precision"
)

// A profile's adaptive repeats (`fleet run --precision` in a profile):
//
//	[profiles.nightly]
//	precision = 2        # repeat each point until its median's 95 % interval is within ±2 %
//	max_repeat = 20      # but at most 20 times (default 20, at least 6)
//	budget = "60m"       # and start no repeat after 60 minutes on a board
//
// precision and repeats exclude each other: with precision, max_repeat caps the repeats.

// NightlyProfile is the built-in profile of the nightly check: full's algorithms at 1 s a point, each repeated
// to ±2 % (at most 20 times, 60 minutes a board).
const NightlyProfile = "nightly"

// MaxBudget bounds budget and --budget.
const MaxBudget = 24 * time.Hour

// CheckBudget refuses a time budget shorter than a second or longer than MaxBudget.
func CheckBudget(d time.Duration) error {
	if d < time.Second || d > MaxBudget {
		return fmt.Errorf("budget %v is out of range (expected 1s to %v per board, such as 10m)", d, MaxBudget)
	}
	return nil
}

// adaptive checks the precision, max_repeat and budget keys of a profile.
func (b *builder) adaptive(base []string, ctx string, d profileDoc, p *Profile) {
	at := func(key string) int { return b.ps.pos.valueAt(appendPath(base, key)...) }
	if d.Precision != nil {
		if err := precision.Check(*d.Precision); err != nil {
			b.ps.add(at("precision"), ctx, "%v", err)
		} else {
			p.PrecisionPct = *d.Precision
		}
		if d.Repeats != nil {
			b.ps.add(at("repeats"), ctx, "repeats and precision exclude each other (with precision, max_repeat caps the repeats)")
		}
	}
	if d.MaxRepeat != nil {
		switch err := precision.CheckMaxRepeat(*d.MaxRepeat); {
		case d.Precision == nil:
			b.ps.add(at("max_repeat"), ctx, "max_repeat needs precision (it caps adaptive repeats; without precision, set repeats)")
		case err != nil:
			b.ps.add(at("max_repeat"), ctx, "%v", err)
		default:
			p.MaxRepeat = int(*d.MaxRepeat)
		}
	}
	if d.Budget != nil {
		budget, err := time.ParseDuration(*d.Budget)
		if err == nil {
			err = CheckBudget(budget)
		} else {
			err = fmt.Errorf("budget %q is not a duration (expected such as \"10m\" or \"1h\")", *d.Budget)
		}
		if err != nil {
			b.ps.add(at("budget"), ctx, "%v", err)
		} else {
			p.Budget = budget
		}
	}
}

// checkAdaptive is ValidateProfile's part for a profile built in code.
func checkAdaptive(p Profile) []string {
	var msgs []string
	if p.PrecisionPct != 0 {
		if err := precision.Check(p.PrecisionPct); err != nil {
			msgs = append(msgs, err.Error())
		}
		if p.MaxRepeat != 0 {
			if err := precision.CheckMaxRepeat(int64(p.MaxRepeat)); err != nil {
				msgs = append(msgs, err.Error())
			}
		}
	} else if p.MaxRepeat != 0 {
		msgs = append(msgs, "max repeat needs a precision (it caps adaptive repeats)")
	}
	if p.Budget != 0 {
		if err := CheckBudget(p.Budget); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	return msgs
}

// MaxRepeats is how often the profile repeats a point at most: max_repeat (default 20) with a precision target,
// else repeats.
func (p Profile) MaxRepeats() int {
	switch {
	case p.PrecisionPct > 0 && p.MaxRepeat > 0:
		return p.MaxRepeat
	case p.PrecisionPct > 0:
		return precision.DefaultMaxRepeat
	}
	return max(p.Repeats, 1)
}
