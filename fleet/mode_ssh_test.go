package fleet

import (
	"slices"
	"testing"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// TestSSHPlanSplit: the agent never sees mode ssh or SSH cipher names; mode ssh gets the ciphers named (all
// defaults when none) and the transfer sizes (64 MiB when none).
func TestSSHPlanSplit(t *testing.T) {
	plan := protocol.Plan{Modes: []string{"cpu", "ssh"}, Algorithms: []string{"aes-128-ctr", "aes128-ctr"},
		Sizes: []int{16, 16384}, Repeats: 3}
	a := agentPlan(plan)
	if !slices.Equal(a.Modes, []string{"cpu"}) || !slices.Equal(a.Algorithms, []string{"aes-128-ctr"}) {
		t.Errorf("agent plan modes %q algorithms %q, want cpu and aes-128-ctr", a.Modes, a.Algorithms)
	}
	if !slices.Equal(plan.Modes, []string{"cpu", "ssh"}) {
		t.Errorf("agentPlan changed its argument: %q", plan.Modes)
	}
	s := sshPlan(plan, nil)
	if s == nil || !slices.Equal(s.Algorithms, []string{"aes128-ctr"}) || !slices.Equal(s.Sizes, []int{64 << 20}) || s.Repeats != 3 {
		t.Fatalf("ssh plan %+v, want aes128-ctr, 64 MiB, 3 repeats", s)
	}
	if got := sshSlots(s, nil); got != 3 {
		t.Errorf("slots %d, want 3", got)
	}
	s = sshPlan(protocol.Plan{Modes: []string{"ssh"}, Algorithms: []string{"aes-128-cbc"}}, []int{8 << 20})
	if !slices.Equal(s.Algorithms, protocol.DefaultSSHCiphers) || !slices.Equal(s.Sizes, []int{8 << 20}) || s.Repeats != 1 {
		t.Errorf("ssh plan %+v, want the default ciphers at 8 MiB once", s)
	}
	// With a precision target Repeats is the adaptive loop's cap, which mode ssh (no loop) must not run in full.
	s = sshPlan(protocol.Plan{Modes: []string{"ssh"}, Repeats: 20, PrecisionPct: 2}, nil)
	if s.Repeats != precision.MinN {
		t.Errorf("ssh plan under --precision repeats %d times, want %d (the cap is 20)", s.Repeats, precision.MinN)
	}
	if sshPlan(protocol.Plan{Modes: []string{"cpu"}}, nil) != nil {
		t.Error("a plan without mode ssh has an ssh plan")
	}
}

// TestSSHModeFact: the probe's facts say whether mode ssh can run, only when it is asked for, so that a run
// without it keeps its default set of modes.
func TestSSHModeFact(t *testing.T) {
	f := &protocol.Facts{}
	addSSHModeFact(f, []string{"cpu"}, NewLocal())
	if len(f.Modes) != 0 {
		t.Errorf("mode ssh not asked, facts %+v", f.Modes)
	}
	addSSHModeFact(f, []string{"ssh"}, NewLocal())
	if len(f.Modes) != 1 || f.Modes[0].Available || f.Modes[0].Reason != sshModeUnsupported {
		t.Errorf("local board: %+v, want ssh unavailable with the reason", f.Modes)
	}
	f = &protocol.Facts{}
	addSSHModeFact(f, []string{"ssh"}, &sshtransport.Transport{})
	if len(f.Modes) != 1 || !f.Modes[0].Available {
		t.Errorf("ssh board: %+v, want ssh available", f.Modes)
	}
}

// TestHostBoundFlag: the controller at 90 % of a core or more flags the point host-bound.
func TestHostBoundFlag(t *testing.T) {
	for _, tc := range []struct {
		pct  float64
		want bool
	}{{89.9, false}, {90, true}, {150, true}, {-1, false}} {
		var p protocol.Point
		fillTransferPoint(&p, transferResult{bytes: 1 << 20, seconds: 0.5, controllerPct: tc.pct,
			board: protocol.Transfer{BoardPct: 120, Cores: 2, BusyTicks: 60}})
		if got := slices.Contains(p.Flags, protocol.FlagHostBound); got != tc.want {
			t.Errorf("controller %v %%: host-bound %v, want %v (flags %q)", tc.pct, got, tc.want, p.Flags)
		}
		if p.BytesPerSec != 2<<20 || p.CPUPct != 120 || p.SysBusyPct != 60 {
			t.Errorf("point %+v: want 2 MiB/s, board 120 %% of one core, 60 %% of all", p)
		}
	}
}
