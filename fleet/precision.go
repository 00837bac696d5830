package fleet

import (
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// adaptivePlan adds the profile's precision target and time budget to a board's plan. The agent runs the repeat
// loop: it sees each repeat as it ends and can start the next without a round trip. With a target it needs the
// board's validity limits to leave invalid repeats uncounted, judging them as the controller will
// (validity.Invalid); Repeats is then the cap (boardPlan sets it from MaxRepeats).
func adaptivePlan(p *protocol.Plan, sweep inventory.Profile, o validity.Overrides) {
	p.BudgetS = sweep.Budget.Seconds()
	if sweep.PrecisionPct <= 0 {
		return
	}
	p.PrecisionPct = sweep.PrecisionPct
	if !o.IsZero() {
		p.Limits = &protocol.ValidityLimits{BackgroundPeakPct: o.BackgroundPeakPct, BackgroundAvgPct: o.BackgroundAvgPct,
			ThrottlePct: o.ThrottlePct}
	}
}
