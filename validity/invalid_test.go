package validity

import (
	"math/rand/v2"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestInvalidAgreesWithJudge: the agent stops repeating on Invalid, the controller stores Judge's verdict; a
// repeat counted by one and not the other would make the printed precision a lie. Evidence is drawn from a
// seeded source around every limit, for accelerated and unaccelerated modes, with and without overrides.
func TestInvalidAgreesWithJudge(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	maybe := func(v float64) *float64 {
		if rng.IntN(4) == 0 {
			return nil
		}
		return &v
	}
	govs := []string{"", "performance", "powersave", "schedutil"}
	drivers := []string{"", "cpufreq-dt", "intel_pstate", "amd-pstate-epp"}
	modes := []string{"cpu", "soft", "afalg", "devcrypto", "kcapi", "engine:x", "provider:y"}
	invalid := 0
	for n := 0; n < 20000; n++ {
		ev := &protocol.Evidence{Cores: rng.IntN(9), BackgroundPct: maybe(rng.Float64() * 20), StealPct: maybe(rng.Float64() * 20),
			CPUSharePct: maybe(70 + rng.Float64()*30)}
		for range rng.IntN(3) {
			ev.CPUFreq = append(ev.CPUFreq, protocol.FreqPolicy{Governor: govs[rng.IntN(len(govs))],
				Driver: drivers[rng.IntN(len(drivers))], BelowMaxPct: maybe(rng.Float64() * 30)})
		}
		if rng.IntN(10) == 0 {
			ev = nil
		}
		var o Overrides
		if rng.IntN(2) == 0 {
			o = Overrides{BackgroundPeakPct: maybe(rng.Float64() * 10), ThrottlePct: maybe(rng.Float64() * 20)}
		}
		p := protocol.Point{Mode: modes[rng.IntN(len(modes))], Algorithm: "sha256", Evidence: ev}
		want := Judge(p, o).Validity == protocol.ValidityInvalid
		if want {
			invalid++
		}
		if got := Invalid(p, o); got != want {
			t.Fatalf("Invalid(%s, %+v, %+v) = %v, Judge says %q", p.Mode, ev, o, got, Judge(p, o).Validity)
		}
	}
	if invalid < 1000 {
		t.Errorf("only %d of 20000 drawn points were invalid: the draw does not exercise the limits", invalid)
	}
}
