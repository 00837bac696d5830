package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/store"
)

// recordOptions is what every command that measures (run, regress --confirm) gives fleet.RunRecorded from its
// flags: the run's record in db (info with this host, tool version and command line), the boards' connections
// and agents (sshFlags), the leases (leaseFlags) and progress on stderr.
func recordOptions(c *cli.Context, db *store.DB, info store.RunInfo, progress *progress) (fleet.RecordOptions, error) {
	info.Host, _ = os.Hostname()
	info.ToolVersion, info.CommandLine = toolVersion(), commandLine(os.Args)
	opts := fleet.RecordOptions{
		Begin: func(ctx context.Context) (fleet.RunRecord, error) {
			w, err := db.BeginRun(ctx, info)
			if err != nil {
				return nil, err // a nil *RunWriter is no nil RunRecord
			}
			return w, nil
		},
		AgentPath: c.String("agent"),
		RunOptions: fleet.RunOptions{
			Concurrency: c.Int("concurrency"),
			Dial:        dialer(c, progress.Logf),
			Progress:    progress,
			Logf:        progress.Logf,
		},
	}
	return opts, leaseOptions(c, &opts.RunOptions)
}
