package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
)

// reconnectFlags are run's flags for a board that goes away mid-sweep (panic, reboot, watchdog reset).
func reconnectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "reconnect-wait", Usage: "wait up to `DURATION` for a board lost mid-sweep to answer again, record " +
			"its reboot, leave out the mode and algorithm that were running and measure the rest (0s: do not wait, the board " +
			"fails with what it measured; default: the board's or profile's reconnect_wait, else 0s)"},
	}
}

// reconnectFromFlags returns --reconnect-wait, nil when not given.
func reconnectFromFlags(c *cli.Context) (*time.Duration, error) {
	if !c.IsSet("reconnect-wait") {
		return nil, nil
	}
	d, err := durationFlag(c, "reconnect-wait", 0, inventory.MaxReconnectWait, inventory.CheckReconnectWait)
	if err != nil {
		return nil, err
	}
	return &d, nil
}
