package main

import (
	"testing"

	"github.com/fleetlab/fleet/bench/internal/smoke"
	"github.com/fleetlab/fleet/internal/buildtest"
)

// TestSmoke runs the benchmark at its smallest (2 boards, 1 s sweeps, one round) through the real fleet binary:
// the cold run pushes the agent and verifies it with the board's sh and sha256sum, the warm one finds it and
// execs it in the same session, as on a board, so that a change of the deploy path breaks this test, not the
// figure. It checks the medians table's rows, not their values.
func TestSmoke(t *testing.T) {
	smoke.Need(t)
	smoke.NeedCommand(t, "/usr/bin/time", "GNU time: apt-get install time")
	smoke.NeedCommand(t, "sha256sum", "coreutils")
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/overhead")
	out := smoke.Run(t, smoke.Cmd{Args: []string{bin, "-boards", "2", "-sweep", "1s", "-rounds", "1", "-fleet", buildtest.Fleet(t)}})
	n := smoke.Number
	smoke.Line(t, out, `^1 +2 +cold +`+n+` +`+n+` +`+n+` +`+n+` +`+n+` +([1-9][0-9]*\.[0-9])$`) // pushed MiB > 0
	smoke.Line(t, out, `^1 +2 +warm +`+n+` +`+n+` +`+n+` +`+n+` +`+n+` +0\.0$`)                 // nothing pushed
	smoke.Line(t, out, `^2 +\| +`+n+` +`+n+` +`+n+` +`+n+` +\| +`+n+` +`+n+` +`+n+` +`+n+`$`)   // the medians' row
}

// TestFlagsRefused checks that bad sizes are refused with exit 2 and the flag named, before anything is built.
func TestFlagsRefused(t *testing.T) {
	smoke.Need(t)
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/overhead")
	for _, args := range [][]string{{"-boards", "0"}, {"-boards", "2,x"}, {"-sweep", "0s"}, {"-rounds", "0"}} {
		smoke.Refused(t, 2, args[0], append([]string{bin}, args...)...)
	}
}
