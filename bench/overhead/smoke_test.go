package main

import (
	"errors"
	"os"
	"testing"

	"github.com/fleetlab/fleet/bench/internal/smoke"
	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/internal/pgtest"
)

// TestSmoke runs the benchmark at its smallest (2 boards, 1 s sweeps, one round) through the real fleet binary,
// the boards in the board simulator's process: the cold run pushes the agent and verifies it with the board's
// sh and sha256sum, the warm one finds it and execs it in the same session, as on a board, so that a change of
// the deploy path breaks this test, not the figure. It checks the rows the figures are read from (each run's,
// the boards' CPU and bytes pushed, the medians'), not their values.
func TestSmoke(t *testing.T) {
	smoke.Need(t)
	smoke.NeedCommand(t, "/usr/bin/time", "GNU time: apt-get install time")
	smoke.NeedCommand(t, "sha256sum", "coreutils")
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/overhead")
	out := smoke.Run(t, smoke.Cmd{Args: []string{bin, "-boards", "2", "-sweep", "1s", "-rounds", "1", "-fleet", buildtest.Fleet(t)}})
	checkRuns(t, out, 1)
}

// TestSmokeControllers runs -controllers 2 at its smallest: two controllers over 2 boards each at once, on one
// throwaway PostgreSQL database, with the database's line (CPU, transactions, conflicts, points stored).
// Skipped without PostgreSQL's binaries unless FLEET_REQUIRE_POSTGRES is set (test.sh sets it).
func TestSmokeControllers(t *testing.T) {
	smoke.Need(t)
	smoke.NeedCommand(t, "/usr/bin/time", "GNU time: apt-get install time")
	if _, err := pgtest.FindBinaries(); errors.Is(err, pgtest.ErrNoBinaries) && os.Getenv("FLEET_REQUIRE_POSTGRES") == "" {
		t.Skip(err)
	}
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/overhead")
	out := smoke.Run(t, smoke.Cmd{Args: []string{bin, "-boards", "2", "-controllers", "2", "-sweep", "1s", "-rounds", "1",
		"-fleet", buildtest.Fleet(t)}})
	checkRuns(t, out, 2)
	n := smoke.Number
	// 2 controllers × 2 boards × 24 points, every one stored; no lease left behind
	smoke.Line(t, out, `^ +database: cpu `+n+` s, [0-9]+ commits, [0-9]+ rollbacks, [0-9]+ deadlocks, [0-9]+ errors logged; 96 points stored \(want 96\), 4 board runs, 0 leases held at the end$`)
}

// checkRuns checks the rows of k controllers over 2 boards: each run's, the cold phase's push, the warm
// phase's none, and the medians'.
func checkRuns(t *testing.T, out string, k int) {
	t.Helper()
	n := smoke.Number
	for c := 1; c <= k; c++ {
		ctl := string(rune('0' + c))
		smoke.Line(t, out, `^1 +2 +`+ctl+` +cold +`+n+` +`+n+` +`+n+` +`+n+` +`+n+` +ok$`)
		smoke.Line(t, out, `^1 +2 +`+ctl+` +warm +`+n+` +`+n+` +`+n+` +`+n+` +`+n+` +ok$`)
		smoke.Line(t, out, `^2 +`+ctl+` +\| +`+n+` +`+n+` +`+n+` +`+n+` +`+n+` +\| +`+n+` +`+n+` +`+n+` +`+n+` +`+n+`$`)
	}
	smoke.Line(t, out, `^ +boards \(simulator\): cpu `+n+` s \(its shells and agents `+n+` s\), pushed [1-9][0-9]*\.[0-9] MiB$`) // cold
	smoke.Line(t, out, `^ +boards \(simulator\): cpu `+n+` s \(its shells and agents `+n+` s\), pushed 0\.0 MiB$`)               // warm
}

// TestFlagsRefused checks that bad values are refused with exit 2 and the flag named, before anything is built.
func TestFlagsRefused(t *testing.T) {
	smoke.Need(t)
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/overhead")
	for _, args := range [][]string{{"-boards", "0"}, {"-boards", "2,x"}, {"-boards", "5001"}, {"-sweep", "0s"},
		{"-rounds", "0"}, {"-controllers", "0"}, {"-pin", "0/x"}, {"-pin", "3-1/0"}} {
		smoke.Refused(t, 2, args[0], append([]string{bin}, args...)...)
	}
}
