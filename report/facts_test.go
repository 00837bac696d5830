package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestBoardFactsCPUClock guards against "0 MHz (max 1000)" for a board that reports only its maximum clock
// (no scaling_cur_freq), which reads like a measured clock of zero.
func TestBoardFactsCPUClock(t *testing.T) {
	for _, tc := range []struct {
		cur, max float64
		want     string
	}{
		{1000, 1000, "Cortex-A8, 1 cores, 1000 MHz (max 1000)"},
		{0, 1000, "Cortex-A8, 1 cores, max 1000 MHz"},
		{600, 0, "Cortex-A8, 1 cores, 600 MHz"},
		{0, 0, "Cortex-A8, 1 cores"},
	} {
		f := &protocol.Facts{CPU: protocol.CPUFacts{Model: "Cortex-A8", Cores: 1, CurMHz: tc.cur, MaxMHz: tc.max}}
		got := ""
		for _, fa := range boardFacts(store.BoardRun{Facts: f}) {
			if fa.Name == "CPU" {
				got = fa.Value
			}
		}
		if got != tc.want {
			t.Errorf("cur %g max %g: CPU = %q, want %q", tc.cur, tc.max, got, tc.want)
		}
	}
}

// TestBoardChangesUnknownIsNotAChange guards against "kernel: 6.18 → (none)" after an import: a capture records
// only its openssl environment, so the facts it does not record are unknown, never a change of value; facts both
// runs record are still compared.
func TestBoardChangesUnknownIsNotAChange(t *testing.T) {
	measured := &protocol.Facts{Kernel: "6.18.0", OpenSSLVersion: "3.0.13", CPU: protocol.CPUFacts{Governor: "performance", MaxMHz: 1000}}
	imported := &protocol.Facts{OpenSSLEnv: map[string]string{}}
	for _, tc := range []struct {
		name      string
		prev, cur *protocol.Facts
		want      []string
	}{
		{"measured then imported", measured, imported, nil},
		{"imported then measured", imported, measured, nil},
		{"both know", measured, &protocol.Facts{Kernel: "6.19.1", OpenSSLVersion: "3.0.13"}, []string{"kernel: 6.18.0 → 6.19.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := boardChanges(tc.prev, tc.cur); !slices.Equal(got, tc.want) {
				t.Errorf("boardChanges = %q, want %q", got, tc.want)
			}
			br := store.BoardRun{Facts: tc.cur, Previous: &store.PreviousFacts{RunID: 2, Facts: tc.prev}}
			for _, fa := range boardFacts(br) {
				if strings.HasPrefix(fa.Name, "changed since") && tc.want == nil {
					t.Errorf("facts list %q: %q", fa.Name, fa.Value)
				}
			}
		})
	}
}
