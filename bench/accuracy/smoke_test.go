package main

import (
	"testing"

	"github.com/fleetlab/fleet/bench/internal/smoke"
	"github.com/fleetlab/fleet/internal/buildtest"
)

// TestSmoke runs the benchmark at its smallest on the local board (one point, one pair, 1 s): a fleet run of the
// point and the hand-typed openssl speed, then the ratio lines. It checks that both ratios are printed, not their
// values.
func TestSmoke(t *testing.T) {
	smoke.Need(t)
	smoke.NeedCommand(t, "openssl", "apt-get install openssl")
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/accuracy")
	out := smoke.Run(t, smoke.Cmd{Args: []string{bin, "-board", "local", "-algorithms", "aes-128-cbc", "-sizes", "1024",
		"-seconds", "1", "-rounds", "1", "-fleet", buildtest.Fleet(t)}})
	smoke.Line(t, out, `^aes-128-cbc +1024 +1 +[0-9]+ +[0-9]+ +`+smoke.Number+` `)
	smoke.Line(t, out, `^fleet/hand, wall-clock throughput over 1 points: median `+smoke.Number)
	smoke.Line(t, out, `^fleet/hand, bytes per CPU-second over 1 points: median `+smoke.Number)
}

// TestFlagsRefused: sizes the benchmark cannot measure are refused with exit 2, the flag named.
func TestFlagsRefused(t *testing.T) {
	smoke.Need(t)
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/accuracy")
	for _, args := range [][]string{{"-seconds", "0"}, {"-rounds", "0"}, {"-sizes", "16,x"}, {"-sizes", "0"}, {"-algorithms", ""}} {
		smoke.Refused(t, 2, args[0], append([]string{bin, "-fleet", "/nonexistent/fleet"}, args...)...)
	}
}
