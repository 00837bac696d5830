package main

import (
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/urfave/cli/v2"
)

// cpusFlags are the pinning flags of run: where each point's openssl runs (a board's cpus in boards.toml, else the
// profile's, unless --cpus says), and whether a pinned point runs one openssl worker per CPU it is pinned to.
func cpusFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cpus", Usage: "pin each point to `CPUS`: big, little, all, each (every cluster " +
			"in turn) or a CPU list such as 0-3,5; wins over boards.toml cpus", DefaultText: "the board's, else the profile's"},
		&cli.BoolFlag{Name: "cluster-threads", Usage: "with --cpus: run -multi N, N the number " +
			"of CPUs each point is pinned to (4 on RK3399's A53s, 2 on its A72s)"},
	}
}

// applyCPUsFlags puts --cpus and --cluster-threads on the profile, refusing a selection that is not one.
func applyCPUsFlags(c *cli.Context, p *inventory.Profile) error {
	if c.IsSet("cpus") {
		v := c.String("cpus")
		if v == "" {
			return usageErr("--cpus: empty (expected big, little, all, each, or a CPU list such as 0-3,5)")
		}
		if err := protocol.CheckCPUs(v); err != nil {
			return usageErr("--cpus: %v", err)
		}
		p.CPUs = v
	}
	if c.IsSet("cluster-threads") {
		p.ClusterThreads = c.Bool("cluster-threads")
		if p.ClusterThreads && p.CPUs == "" && !c.IsSet("cpus") {
			return usageErr("--cluster-threads needs --cpus (or cpus in the profile): the CPUs whose count is the -multi")
		}
	}
	return nil
}
