package main

import (
	"testing"

	"github.com/fleetlab/fleet/bench/internal/smoke"
	"github.com/fleetlab/fleet/internal/buildtest"
)

// TestSmoke runs the benchmark on a 1 MB capture (instead of 200 MB): all three runs of fleet import under GNU
// time, each printing its peak RSS, wall and CPU time and exit 0. It checks the lines, not the figures.
func TestSmoke(t *testing.T) {
	smoke.Need(t)
	smoke.NeedCommand(t, "/usr/bin/time", "GNU time: apt-get install time")
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/import")
	out := smoke.Run(t, smoke.Cmd{Args: []string{bin, "-fleet", buildtest.Fleet(t), "-size", "1MB"}})
	smoke.Line(t, out, `^capture: [0-9]+ bytes`)
	n := smoke.Number
	for _, mode := range []string{"dry-json", "dry-table", "store"} {
		smoke.Line(t, out, `^`+mode+` +peak RSS +`+n+` MiB +wall +`+n+` s +cpu +`+n+` s +exit 0 `)
	}
}
