package sshbench

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/bench/internal/smoke"
	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/internal/sshlab"
)

// needBench skips unless FLEET_BENCH=1: these tests time things, which has no place in a normal test run. With
// FLEET_BENCH_SMOKE=1 instead (test.sh's stage "bench smoke", package bench/internal/smoke) each runs at its
// smallest, one round of small transfers, to show that it still goes through; it reports whether it is that run.
//
// Every one of them needs the sshd lab: without sshd they skip here, before building anything (a build of fleet
// and its agent costs minutes on a loaded machine), where internal/sshlab would skip after.
func needBench(t *testing.T) (smokeRun bool) {
	t.Helper()
	switch {
	case os.Getenv("FLEET_BENCH") == "1":
	case os.Getenv(smoke.Env) == "1":
		smokeRun = true
	default:
		t.Skip("a benchmark: run with FLEET_BENCH=1 (or " + smoke.Env + "=1 for its smallest run)")
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Skip("the sshd lab (internal/sshlab) needs /usr/sbin/sshd: apt-get install openssh-server")
	}
	return smokeRun
}

// benchRounds is FLEET_BENCH_ROUNDS when it is a positive number, else 1 in a smoke run, else def.
func benchRounds(t *testing.T, def int, smokeRun bool) int {
	t.Helper()
	if v := os.Getenv("FLEET_BENCH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("FLEET_BENCH_ROUNDS=%q: want a number of rounds, at least 1", v)
		}
		return n
	}
	if smokeRun {
		return 1
	}
	return def
}

// buildAgent builds the agent for this machine exactly as fleet cross-compiles it, into dir.
func buildAgent(t *testing.T, dir string) string {
	return buildtest.BinaryIn(t, dir, buildtest.Module+"/cmd/fleet-agent", buildtest.AgentEnv()...)
}

// wireBytes is what crossed the board's network interfaces (received plus sent) so far: the board's own
// /proc/net/dev, read inside its network namespace. It is -1 when the lab runs on loopback ports, where the
// count would include every other process.
func wireBytes(t *testing.T, b *sshlab.Board) int64 {
	t.Helper()
	if b.NetNS == "" {
		return -1
	}
	out, err := b.Exec("cat", "/proc/net/dev")
	if err != nil {
		t.Fatalf("read /proc/net/dev on %s: %v: %s", b.Name, err, out)
	}
	var sum int64
	for _, l := range strings.Split(string(out), "\n") {
		name, rest, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(name) == "lo" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 9 {
			continue
		}
		rx, err1 := strconv.ParseInt(f[0], 10, 64)
		tx, err2 := strconv.ParseInt(f[8], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		sum += rx + tx
	}
	return sum
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func secs(d time.Duration) float64 { return d.Seconds() }
