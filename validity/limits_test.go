package validity

import (
	"strings"
	"testing"
)

// TestLimitsWarning: an average limit above the peak it applies with, known only once the board's cores are.
func TestLimitsWarning(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		cores int
		o     Overrides
		want  string
	}{
		{2, Overrides{}, ""},
		{2, Overrides{BackgroundAvgPct: f(6)}, ""},
		{2, Overrides{BackgroundAvgPct: f(10)}, "the default peak limit for 2 cores (16 %/cores) is 8 %"},
		{1, Overrides{BackgroundAvgPct: f(10)}, ""},
		{8, Overrides{BackgroundAvgPct: f(3)}, "is 2 %"},
		{8, Overrides{BackgroundAvgPct: f(3), BackgroundPeakPct: f(2.5)}, "its background_peak_pct is 2.5 %"},
		{8, Overrides{BackgroundAvgPct: f(3), BackgroundPeakPct: f(5)}, ""},
	} {
		got := LimitsWarning(c.cores, c.o)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%d cores, %+v: %q, want %q", c.cores, c.o, got, c.want)
		}
	}
}
