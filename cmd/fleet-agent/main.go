// Command fleet-agent is the small static program fleet pushes to a board: it probes the board and runs
// `openssl speed` sweeps, speaking JSON lines on stdout. See package agent.
package main

import (
	"context"
	"os"

	"github.com/fleetlab/fleet/agent"
)

func main() {
	ctx, stop := agent.SignalContext(context.Background())
	code := agent.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
