package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/precision"
)

// precisionFlags are run's flags for adaptive repeats.
func precisionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "precision", Usage: "repeat each point (interleaved across modes) until the 95 % confidence interval of its " +
			"median is within ±`P` % of it, e.g. 2 or 0.5% (distribution-free, from order statistics: at least 6 repeats; " +
			"failed and invalid repeats do not count); excludes --repeat", DefaultText: fromProfile},
		&cli.IntFlag{Name: "max-repeat", Usage: fmt.Sprintf("with --precision, repeat a point at most `N` times (%d to %d); "+
			"the tables mark points that stopped there", precision.MinN, precision.MaxMaxRepeat),
			DefaultText: fmt.Sprintf("the profile's, else %d", precision.DefaultMaxRepeat)},
		&cli.StringFlag{Name: "budget", Usage: "start no repeat after `DURATION` on a board (e.g. 10m; the first measurement of " +
			"every point always runs)", DefaultText: fromProfile},
	}
}

// applyPrecisionFlags puts the command line's --precision, --max-repeat and --budget over the profile. --repeat
// turns the profile's precision off (a fixed count asked for by name wins); both on one command line is an error.
func applyPrecisionFlags(c *cli.Context, p *inventory.Profile) error {
	if c.IsSet("precision") && c.IsSet("repeat") {
		return usageErr("--precision and --repeat exclude each other (with --precision, --max-repeat caps the repeats)")
	}
	if c.IsSet("repeat") {
		p.PrecisionPct, p.MaxRepeat = 0, 0
	}
	if c.IsSet("precision") {
		v, err := precision.Parse(c.String("precision"))
		if err != nil {
			return usageErr("--precision: %w", err)
		}
		p.PrecisionPct = v
	}
	if c.IsSet("max-repeat") {
		n := c.Int("max-repeat")
		if err := precision.CheckMaxRepeat(int64(n)); err != nil {
			return usageErr("--max-repeat: %w", err)
		}
		if p.PrecisionPct == 0 {
			return usageErr("--max-repeat %d needs --precision (or a profile with precision): without it, --repeat sets the count", n)
		}
		p.MaxRepeat = n
	}
	if c.IsSet("budget") {
		d, err := durationFlag(c, "budget", time.Second, inventory.MaxBudget, inventory.CheckBudget)
		if err != nil {
			return err
		}
		p.Budget = d
	}
	return nil
}
