package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
)

// prepareFlags are run's flags that prepare each board before its sweep, for valid points.
func prepareFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "quiet-wait", Usage: "before each board's sweep, wait up to `DURATION` for its background CPU to fall below " +
			"the validity limit (0s: do not wait; default: the board's or profile's validity.quiet_wait, else no wait)"},
		&cli.StringFlag{Name: "governor", Usage: "set cpufreq `GOVERNOR` (e.g. performance) for each board's sweep where the agent may, " +
			"and restore the previous one afterwards, also on Ctrl-C or a lost link"},
	}
}

// prepareFromFlags returns the command line's quiet wait (nil: not given) and governor ("": not given).
func prepareFromFlags(c *cli.Context) (*time.Duration, string, error) {
	var wait *time.Duration
	if c.IsSet("quiet-wait") {
		d, err := durationFlag(c, "quiet-wait", 0, inventory.MaxQuietWait, inventory.CheckQuietWait)
		if err != nil {
			return nil, "", err
		}
		wait = &d
	}
	gov := c.String("governor")
	if c.IsSet("governor") {
		if err := inventory.CheckGovernor(gov); err != nil {
			return nil, "", usageErr("--governor: %w", err)
		}
	}
	return wait, gov, nil
}
