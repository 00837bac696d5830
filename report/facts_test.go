package report

import (
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
