package validity

import (
	"slices"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func TestCause(t *testing.T) {
	for _, tc := range []struct{ reason, want string }{
		{"background CPU 45 % (limit 10 %)", "background CPU"},
		{"mean background CPU 12 % over 24 points (suspect above 5 %)", "background CPU"},
		{"steal 3 % (limit 2 %)", "steal time"},
		{"had the CPU 45 % of the time: the machine was busy (invalid below 84 %)", "CPU share"},
		{"throttled: 40 % of the time below 1500 MHz (limit 5 %)", "throttled"},
		{"governor powersave (policy0)", "governor powersave"},
		{"scaling_max_freq 800 MHz below the CPU's 1500 MHz (policy0)", "clock capped"},
		{"thermal_zone0 (cpu-thermal) at 85 °C, trip point 85 °C", "temperature"},
		{"swapping: 3 pages in, 0 out", "swapping"},
		{"CPUs 2-3 offline", "CPUs offline"},
		{"new rule 7 of 9", "new rule"},
		{"12", "other"},
	} {
		if got := Cause(tc.reason); got != tc.want {
			t.Errorf("Cause(%q) = %q, want %q", tc.reason, got, tc.want)
		}
	}
}

// TestCauseOfJudge: every reason Judge writes has a cause of its own, not the fallback.
func TestCauseOfJudge(t *testing.T) {
	bg, steal := 60.0, 50.0
	share := 40.0
	p := protocol.Point{Mode: protocol.ModeCPU, Evidence: &protocol.Evidence{Cores: 2, BackgroundPct: &bg, StealPct: &steal,
		CPUSharePct: &share}}
	v := Judge(p, Overrides{})
	if got, want := Causes(v.Reasons), []string{"background CPU", "steal time", "CPU share"}; !slices.Equal(got, want) {
		t.Errorf("causes of %q = %q, want %q", v.Reasons, got, want)
	}
}
