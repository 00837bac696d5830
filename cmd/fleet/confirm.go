package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// confirmFlags are regress's flags for --confirm: it measures, so it needs what run needs to reach the boards.
func confirmFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "confirm", Usage: fmt.Sprintf("measure every regressed series again on its board (%d repeats, "+
			"interleaved, with validity) and re-judge: a drop that is gone is \"transient\", one that stays \"regressed (confirmed)\"", report.ConfirmRepeats)},
	}, append(sshFlags(), leaseFlags()...)...)
}

// confirmRegressions measures the regressed series of r again on the boards of the inventory, stores that as a
// run labelled "confirm", and re-judges r with it. Boards the inventory lacks, or that fail, keep their verdict
// with the reason.
func confirmRegressions(c *cli.Context, db *store.DB, r *report.Regression, base, cur []store.Measurement, opts report.RegressOptions) error {
	targets := r.ConfirmTargets()
	if len(targets) == 0 {
		return nil
	}
	inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
	if err != nil {
		return usageErr("--confirm: %w", err)
	}
	plan := report.PlanConfirm(inv, targets, cur)
	notMeasured := plan.NotMeasured
	if len(plan.Boards) == 0 {
		r.Confirm(base, nil, notMeasured, opts)
		return nil
	}
	progress := newProgress(c.App.ErrWriter)
	ro, err := recordOptions(c, db, store.RunInfo{Label: "confirm", Source: "fleet regress --confirm"}, progress)
	if err != nil {
		return err
	}
	ro.Boards, ro.Sweep, ro.ModesSet = plan.Boards, plan.Sweep, true
	run, err := fleet.RunRecorded(c.Context, ro)
	progress.Wait()
	if err != nil {
		return usageErr("%w", err)
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	for _, o := range run.Outcomes {
		if o.Status != protocol.StatusOK && o.Err != nil {
			notMeasured[o.Board] = "measuring again failed: " + o.Err.Error()
		}
	}
	again, err := db.Measurements(c.Context, store.Filter{RunID: run.ID})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "confirm: run %d measured %d points again\n", run.ID, len(again))
	r.Confirm(base, again, notMeasured, opts)
	return nil
}
