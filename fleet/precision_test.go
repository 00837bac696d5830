package fleet

import (
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/validity"
)

// TestAdaptivePlanCarriesTargetCapBudgetAndLimits: the agent runs the repeat loop, so the plan must carry what
// it stops on, and the limits it judges repeats by must be the board's own, as the controller's verdict uses.
func TestAdaptivePlanCarriesTargetCapBudgetAndLimits(t *testing.T) {
	peak := 4.0
	board := inventory.Board{Name: "b", Validity: validity.Overrides{BackgroundPeakPct: &peak}}
	sweep := inventory.Profile{Algorithms: []string{"sha256"}, Seconds: 1, Threads: 1, Repeats: 1,
		PrecisionPct: 1.5, MaxRepeat: 12, Budget: 10 * time.Minute}
	opts := RunOptions{Sweep: sweep}
	p := boardPlan(opts, board)
	preparePlan(&p, opts, board)
	if p.PrecisionPct != 1.5 || p.Repeats != 12 || p.BudgetS != 600 {
		t.Errorf("plan: precision %v, repeats %v, budget %v s; want 1.5, 12 (the cap), 600", p.PrecisionPct, p.Repeats, p.BudgetS)
	}
	if p.Limits == nil || p.Limits.BackgroundPeakPct == nil || *p.Limits.BackgroundPeakPct != 4 {
		t.Errorf("plan limits %+v, want the board's background peak of 4 %%", p.Limits)
	}

	sweep.PrecisionPct, sweep.MaxRepeat, sweep.Repeats = 0, 0, 3
	opts = RunOptions{Sweep: sweep}
	p = boardPlan(opts, board)
	preparePlan(&p, opts, board)
	if p.PrecisionPct != 0 || p.Repeats != 3 || p.Limits != nil || p.BudgetS != 600 {
		t.Errorf("fixed plan: %+v, want 3 repeats, no target, no limits, the budget", p)
	}
}
