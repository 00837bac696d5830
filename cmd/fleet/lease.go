package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/fleet"
)

// Lease flag ranges: a wait of up to a week lets a run queue behind a weekend's sweep; a time to live under a
// second would expire between two heartbeats of a busy controller, one over an hour keeps a dead controller's
// boards for too long.
const (
	defaultLeaseWait = 30 * time.Minute
	maxLeaseWait     = 7 * 24 * time.Hour
	minLeaseTTL      = time.Second
	maxLeaseTTL      = time.Hour
)

// leaseFlags are the flags of the commands that measure (run, regress --confirm): how long a board waits for
// another run's lease, and how long a lease outlives its controller.
func leaseFlags() []cli.Flag {
	return []cli.Flag{
		// A string, not a DurationFlag: a value that is no duration gets a message with the accepted range.
		&cli.StringFlag{Name: "lease-wait", Value: defaultLeaseWait.String(),
			Usage: "wait up to `DURATION` (e.g. 90s, 30m, 2h) for a board another run is measuring (0s: do not wait); " +
				"then that board fails with exit 3 and the others go on",
			Action: func(c *cli.Context, s string) error {
				_, err := leaseWait(s)
				return err
			}},
		&cli.StringFlag{Name: "lease-ttl", Value: fleet.DefaultLeaseTTL.String(),
			Usage: "a board's lease outlives a controller that died (killed, power cut, network lost) by `DURATION`; " +
				"a live one renews it every sixth of it, at most every 10s",
			Action: func(c *cli.Context, s string) error {
				_, err := leaseTTL(s)
				return err
			}},
	}
}

func leaseWait(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > maxLeaseWait {
		return 0, usageErr("--lease-wait %q: want a duration from 0s (do not wait) to %v, such as 90s or 30m", s, maxLeaseWait)
	}
	return d, nil
}

func leaseTTL(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < minLeaseTTL || d > maxLeaseTTL {
		return 0, usageErr("--lease-ttl %q: want a duration from %v to %v, such as 60s", s, minLeaseTTL, maxLeaseTTL)
	}
	return d, nil
}

// leaseOptions puts the lease flags into opts (the leases themselves are the run's record's: fleet.RunRecorded).
// The flags' Actions have checked them already.
func leaseOptions(c *cli.Context, opts *fleet.RunOptions) error {
	wait, err := leaseWait(c.String("lease-wait"))
	if err != nil {
		return err
	}
	ttl, err := leaseTTL(c.String("lease-ttl"))
	if err != nil {
		return err
	}
	opts.LeaseWait = wait
	opts.LeaseTimes = fleet.LeaseTimes{TTL: ttl} // heartbeat and polling: fleet's defaults
	return nil
}
