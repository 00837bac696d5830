package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// judged marks the points of one series (mode/alg/size) with a verdict.
func judged(ms []store.Measurement, mode, alg string, size int, v string, reasons ...string) []store.Measurement {
	for i := range ms {
		if ms[i].Mode == mode && ms[i].Algorithm == alg && ms[i].BlockSize == size {
			ms[i].Validity, ms[i].ValidityReasons = v, reasons
		}
	}
	return ms
}

// TestRegressNeverJudgesInvalidPoints guards validity's gate on regress: a series whose points are all invalid is
// "not judged: invalid" with the reasons, never a regression, even though its numbers dropped by a half.
func TestRegressNeverJudgesInvalidPoints(t *testing.T) {
	cur := current(5, map[string]float64{"cpu/aes-128-cbc/16384": 0.5}, nil)
	cur = judged(cur, "cpu", "aes-128-cbc", 16384, protocol.ValidityInvalid, "background CPU 38 % (limit 8 %)")
	r := Regress(baseline(), cur, nil, nil, RegressOptions{})
	if r.HasRegression() {
		t.Errorf("HasRegression() = true for a drop measured on a busy board")
	}
	x := row(t, r, "cpu", "aes-128-cbc", 16384)
	if x.Verdict != VerdictInvalid || !r.HasInvalid() {
		t.Fatalf("verdict = %q, want %q", x.Verdict, VerdictInvalid)
	}
	if got := strings.Join(x.Notes, "\n"); !strings.Contains(got, "5 points invalid: background CPU 38 % (limit 8 %)") {
		t.Errorf("notes %q do not say why", got)
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`errors="1"`, `<error message="aes-128-cbc 16384 B cpu: not judged, points invalid" type="invalid">`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("JUnit lacks %s:\n%s", want, junit.String())
		}
	}
	if strings.Contains(junit.String(), "<failure") {
		t.Errorf("JUnit has a failure for an invalid series:\n%s", junit.String())
	}
	// a real regression elsewhere still wins
	cur = current(5, map[string]float64{"cpu/aes-128-cbc/16384": 0.5, "cpu/aes-128-cbc/1024": 0.7}, nil)
	cur = judged(cur, "cpu", "aes-128-cbc", 16384, protocol.ValidityInvalid, "busy")
	if r := Regress(baseline(), cur, nil, nil, RegressOptions{}); !r.HasRegression() || !r.HasInvalid() {
		t.Errorf("regression elsewhere: HasRegression %v, HasInvalid %v; want both", r.HasRegression(), r.HasInvalid())
	}
}

// TestRegressLeavesOutInvalidBaselinePoints guards the other side: a baseline sample judged invalid (a busy
// night that made the board look slow) is never the reference of a verdict.
func TestRegressLeavesOutInvalidBaselinePoints(t *testing.T) {
	base := judged(baseline(), "cpu", "aes-128-cbc", 16384, protocol.ValidityInvalid, "busy")
	r := Regress(base, current(5, nil, nil), nil, nil, RegressOptions{})
	for _, x := range r.Rows {
		if x.Mode == "cpu" && x.Algorithm == "aes-128-cbc" && x.BlockSize == 16384 && x.Verdict != VerdictNew {
			t.Errorf("series with an invalid baseline judged %q, want it left out", x.Verdict)
		}
	}
	if got := strings.Join(r.Notes, "\n"); !strings.Contains(got, "all 5 baseline points invalid; not judged") {
		t.Errorf("notes %q do not say the baseline was invalid", got)
	}
	// JUnit names that series as an error of its own beside the judged ones (it was left out, so a CI job saw
	// only the board's other series, unchanged)
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testcase name="cpu/aes-128-cbc/16384"`,
		`<error message="aes-128-cbc 16384 B cpu: not judged, every baseline point invalid" type="invalid">`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("JUnit lacks %s:\n%s", want, junit.String())
		}
	}
	// suspect points are judged, as they are
	cur := judged(current(5, map[string]float64{"cpu/aes-128-cbc/16384": 0.5}, nil), "cpu", "aes-128-cbc", 16384,
		protocol.ValiditySuspect, "background CPU 3 % (suspect above 2 %)")
	if r := Regress(baseline(), cur, nil, nil, RegressOptions{}); !r.HasRegression() {
		t.Error("a drop on suspect points is not a regression, want it judged")
	}
}

func TestRegressNotesSkippedBaselines(t *testing.T) {
	r := Regress(baseline(), current(5, nil, nil), nil, nil, RegressOptions{
		SkippedBaselines: map[string][]string{"am64x": {"run 9: invalid (busy)"}}})
	if got := strings.Join(r.Notes, "\n"); !strings.Contains(got, "am64x: baseline skips run 9: invalid (busy)") {
		t.Errorf("notes %q do not name the skipped run", got)
	}
}
