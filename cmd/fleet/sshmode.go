package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// sshSweepFromFlags is what --modes, --algorithms and --sizes say of mode ssh (inventory.ApplySSHFlags, where
// serve or any other front end finds the same rules), p adjusted; a refusal is a usage error.
func sshSweepFromFlags(c *cli.Context, p *inventory.Profile) (transfer []int, consumed bool, err error) {
	transfer, consumed, err = inventory.ApplySSHFlags(p, inventory.SweepFlags{Modes: splitList(c.StringSlice("modes")),
		Algorithms: splitList(c.StringSlice("algorithms")), Sizes: splitList(c.StringSlice("sizes")), ModesGiven: c.IsSet("modes")})
	if err != nil {
		return nil, false, usageErr("%w", err)
	}
	return transfer, consumed, nil
}

// writeRunSSH prints mode ssh's table of a run's ssh points, set against the raw cipher points of the same boards.
func writeRunSSH(c *cli.Context, db *store.DB, ssh []store.Measurement, format string) error {
	raw, err := db.RawCipherPoints(c.Context, ssh)
	if err != nil {
		return err
	}
	v, err := report.NewCompareView(ssh, raw, report.CompareOptions{}, format)
	if err != nil {
		return usageErr("%w", err)
	}
	if err := report.WriteCompareView(c.App.Writer, v, format, report.Layout{}); err != nil {
		return usageErr("%w", err)
	}
	return nil
}

// writeRunTables prints what a run measured: the sweep tables, then mode ssh's table when it measured that
// (a machine format holds one: the sweep's, or the SSH table's when the run measured nothing else).
func writeRunTables(c *cli.Context, db *store.DB, ms []store.Measurement, layout report.Layout) error {
	others, ssh := report.SplitSSH(ms)
	f, _ := report.ViewRun.CheckFormat(c.String("format"))
	if f != report.FormatText {
		if len(ssh) > 0 && len(others) == 0 {
			return writeRunSSH(c, db, ssh, c.String("format"))
		}
		return report.WriteSweep(c.App.Writer, others, report.DefaultUnit, c.String("format"), layout)
	}
	if len(others) > 0 || len(ssh) == 0 {
		if err := writeSweepTables(c, others, layout); err != nil {
			return err
		}
	}
	if len(ssh) == 0 {
		return nil
	}
	if len(others) > 0 {
		fmt.Fprintln(c.App.Writer)
	}
	return writeRunSSH(c, db, ssh, "text")
}
