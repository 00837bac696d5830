package main

import (
	"testing"

	"github.com/fleetlab/fleet/bench/internal/smoke"
	"github.com/fleetlab/fleet/internal/buildtest"
)

// TestSmoke runs the benchmark at its smallest on the local board: one point (cpu aes-128-cbc 1024 B, 1 s),
// --precision 5 (at most 6 repeats, the fewest with an interval) against --repeat 3 and PTS's rule replayed on it, one round. It checks that each scheme's row
// and its ratio to the fixed scheme are printed, not their values.
func TestSmoke(t *testing.T) {
	smoke.Need(t)
	smoke.NeedCommand(t, "openssl", "apt-get install openssl")
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/precision")
	out := smoke.Run(t, smoke.Cmd{Args: []string{bin, "-board", "local", "-seconds", "1", "-targets", "5", "-repeat", "3",
		"-max-repeat", "6", "-args", "--modes cpu --algorithms aes-128-cbc --sizes 1024", "-fleet", buildtest.Fleet(t)}})
	n := smoke.Number
	for _, scheme := range []string{`--precision 5`, `--repeat 3`, `PTS rule \(replayed\)`} {
		smoke.Line(t, out, `^`+scheme+` +1 +`+n+` +`+n+`× +`+n+` `)
	}
}
