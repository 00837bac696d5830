package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// ownRunners are the modes of protocol.Modes that openssl speed does not measure, and where they are measured.
var ownRunners = map[string]string{
	protocol.ModeKCAPI: "agent/sweep_kcapi.go",
	protocol.ModeSSH:   "fleet/mode_ssh.go (the controller)",
}

// TestEveryModeIsProbedAndSwept: the probe has a case for every mode every probe reports on, on old and new
// OpenSSL, and the sweep knows how to measure every mode of protocol.Modes, so that a mode added to the table
// without the agent's part fails here.
func TestEveryModeIsProbedAndSwept(t *testing.T) {
	engines := map[string]string{}
	for _, e := range protocol.ModeEngines() {
		engines[e] = "available"
	}
	for _, v := range []opensslVersion{{Major: 1, Minor: 0, Patch: 2}, {Major: 3, Minor: 0, Patch: 19}} {
		f := &protocol.Facts{Machine: "aarch64", AFALG: true, DevCrypto: true, Engines: engines}
		facts := probeModes(context.Background(), f, &v, "", ProbeOptions{})
		if got, want := len(facts), len(protocol.StandardModes); got != want {
			t.Fatalf("OpenSSL %s: %d mode facts, want %d", versionString(v), got, want)
		}
		for i, m := range protocol.StandardModes {
			if facts[i].Mode != m || !facts[i].Available {
				t.Errorf("OpenSSL %s: the probe says of %s %+v, want it available on a board that has everything", versionString(v), m, facts[i])
			}
		}
		for _, s := range protocol.Modes {
			opts, env, engine, err := speedModeOptions(s.Mode, v, "aarch64")
			if where, ok := ownRunners[s.Mode]; ok {
				if err == nil {
					t.Errorf("speedModeOptions(%s) = %q, %q: the mode is measured by %s, not openssl speed", s.Mode, opts, env, where)
				}
				continue
			}
			if err != nil {
				t.Errorf("OpenSSL %s: mode %s: %v (want its openssl options in speedModeOptions, or its runner in ownRunners)", versionString(v), s.Mode, err)
				continue
			}
			if len(s.Engines) > 0 && (engine == "" || !strings.Contains(strings.Join(opts, " "), engine)) {
				t.Errorf("OpenSSL %s: mode %s runs %q, want one of its engines %q", versionString(v), s.Mode, opts, s.Engines)
			}
		}
	}
}
