package opensslspeed

import (
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestEngineModesFromTable: a capture's engine is read as the mode of protocol.Modes that lists it, in any case,
// so that a mode added there with its engines is read from captures without a change here; any other engine is
// engine:NAME.
func TestEngineModesFromTable(t *testing.T) {
	for _, s := range protocol.Modes {
		for _, e := range s.Engines {
			for _, spelled := range []string{e, strings.ToUpper(e)} {
				if got := speedEngineMode(spelled); got != s.Mode {
					t.Errorf("speedEngineMode(%q) = %q, want %q", spelled, got, s.Mode)
				}
			}
			if !speedEngineError("error:80000002:system library::" + e + " engine failed") {
				t.Errorf("an error line naming engine %s is not taken for the engine's", e)
			}
		}
	}
	if got, want := speedEngineMode("PKA"), protocol.EnginePrefix+"pka"; got != want {
		t.Errorf("speedEngineMode(PKA) = %q, want %q", got, want)
	}
}
