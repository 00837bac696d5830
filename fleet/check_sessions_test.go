package fleet

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// TestCheckSessionsPerBoard: `fleet boards check` of a board that has the agent costs the one session a run's
// start does (the deploy check execs the agent's probe), not a deploy check and a probe of its own; the first
// check pushes the agent as a run would (check, put and verification, then the probe). The probe tests the
// engines of the board's own modes, and the check says which modes a run would measure.
func TestCheckSessionsPerBoard(t *testing.T) {
	ro := runOptions(t)
	board := &hostTransport{home: t.TempDir()}
	b := inventory.Board{Name: "am64x", Host: "am64x.lab", Modes: []string{"cpu", "engine:nosuch"}}
	opts := CheckOptions{
		Boards: []inventory.Board{b},
		Dial:   func(context.Context, inventory.Board) (Transport, error) { return board, nil },
		Agent:  ro.Agent,
	}
	for i, want := range []struct {
		sessions, puts int
		deploy         string
	}{
		{3, 1, "pushed "},
		{1, 0, "agent already there, pushed 0 bytes"},
		{1, 0, "agent already there, pushed 0 bytes"},
	} {
		board.runs, board.puts = nil, 0
		res := Check(context.Background(), opts)
		if len(res) != 1 {
			t.Fatalf("check %d: %d results", i+1, len(res))
		}
		r := res[0]
		if r.Err != nil {
			t.Fatalf("check %d: %v", i+1, r.Err)
		}
		if len(board.runs) != want.sessions || board.puts != want.puts {
			t.Errorf("check %d: %d sessions and %d puts, want %d and %d:\n%s", i+1, len(board.runs), board.puts,
				want.sessions, want.puts, strings.Join(board.runs, "\n"))
		}
		if !strings.HasPrefix(r.Deploy, want.deploy) {
			t.Errorf("check %d: deploy %q, want %q", i+1, r.Deploy, want.deploy)
		}
		if r.Summary == "" || !strings.Contains(r.Summary, "OpenSSL") {
			t.Errorf("check %d: summary %q, want the board's OpenSSL named", i+1, r.Summary)
		}
		if !strings.Contains(strings.Join(r.Modes.Available, ","), "cpu") {
			t.Errorf("check %d: modes %+v, want cpu available", i+1, r.Modes)
		}
		if !slices.ContainsFunc(r.Modes.Unavailable, func(m protocol.ModeFact) bool { return m.Mode == "engine:nosuch" }) {
			t.Errorf("check %d: modes %+v, want engine:nosuch unavailable (probed)", i+1, r.Modes)
		}
	}
}
