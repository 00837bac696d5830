package report

import (
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// againRun is a re-measure (run 12) with 5 repeats and the given changes.
func againRun(scale map[string]float64) []store.Measurement {
	return build(12, "confirm", curStarted, am64xSeries(5, 1, scale, nil))
}

// oneNight is a single-sample nightly (n = 1) whose aes-128-cbc 16384 B cpu point dropped by a quarter: too few
// samples for the U test, but far below the baseline's range, so "regressed" by the range rule — a one-off that
// --confirm exists to settle.
func oneNight() *Regression {
	cur := current(1, map[string]float64{"cpu/aes-128-cbc/16384": 0.75}, nil)
	return Regress(baseline(), cur, nil, nil, RegressOptions{})
}

func TestConfirmTargets(t *testing.T) {
	r := oneNight()
	got := r.ConfirmTargets()
	if len(got) != 1 || got[0].Board != "am64x" || strings.Join(got[0].Algorithms, ",") != "aes-128-cbc" ||
		strings.Join(got[0].Modes, ",") != "cpu" || len(got[0].Sizes) != 1 || got[0].Sizes[0] != 16384 {
		t.Errorf("ConfirmTargets = %+v, want am64x cpu aes-128-cbc 16384", got)
	}
}

// TestConfirmTransient guards the one-off: re-measured at the baseline's speed, the drop is "transient" and no
// longer fails the check.
func TestConfirmTransient(t *testing.T) {
	r := oneNight()
	if x := row(t, r, "cpu", "aes-128-cbc", 16384); x.Verdict != VerdictRegressed {
		t.Fatalf("before confirmation: %q, want %q", x.Verdict, VerdictRegressed)
	}
	r.Confirm(baseline(), againRun(nil), nil, RegressOptions{})
	x := row(t, r, "cpu", "aes-128-cbc", 16384)
	if x.Verdict != VerdictTransient || r.HasRegression() {
		t.Errorf("after a clean re-measure: %q (HasRegression %v), want %q", x.Verdict, r.HasRegression(), VerdictTransient)
	}
	if got := strings.Join(x.Notes, "\n"); !strings.Contains(got, "re-measured:") || !strings.Contains(got, "n=5") {
		t.Errorf("notes %q do not give the re-measure", got)
	}
}

// TestConfirmConfirmed guards the real drop: still slower on re-measure, it is "regressed (confirmed)".
func TestConfirmConfirmed(t *testing.T) {
	r := oneNight()
	r.Confirm(baseline(), againRun(map[string]float64{"cpu/aes-128-cbc/16384": 0.75}), nil, RegressOptions{})
	x := row(t, r, "cpu", "aes-128-cbc", 16384)
	if x.Verdict != VerdictConfirmed || !r.HasRegression() {
		t.Errorf("after a slow re-measure: %q, want %q", x.Verdict, VerdictConfirmed)
	}
}

// TestConfirmInvalidReMeasure guards against a busy re-measure settling anything: the row keeps its verdict.
func TestConfirmInvalidReMeasure(t *testing.T) {
	r := oneNight()
	again := judged(againRun(nil), "cpu", "aes-128-cbc", 16384, protocol.ValidityInvalid, "background CPU 60 % (limit 8 %)")
	r.Confirm(baseline(), again, nil, RegressOptions{})
	x := row(t, r, "cpu", "aes-128-cbc", 16384)
	if x.Verdict != VerdictRegressed || !strings.Contains(strings.Join(x.Notes, "\n"), "were invalid: background CPU 60 %") {
		t.Errorf("after an invalid re-measure: %q %q, want it regressed with the reason", x.Verdict, x.Notes)
	}
	r = oneNight()
	r.Confirm(baseline(), nil, map[string]string{"am64x": "not in the inventory"}, RegressOptions{})
	if x := row(t, r, "cpu", "aes-128-cbc", 16384); x.Verdict != VerdictRegressed ||
		!strings.Contains(strings.Join(x.Notes, "\n"), "not re-measured: not in the inventory") {
		t.Errorf("board not re-measured: %q %q", x.Verdict, x.Notes)
	}
}
