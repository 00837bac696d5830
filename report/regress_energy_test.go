package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// energyRun is one run's points of am64x aes-128-cbc at 1024 and 16384 B, 5 repeats each at the same throughput;
// uj gives each size's µJ/B (0: the sensor could not say).
func energyRun(run int64, uj map[int]float64) []store.Measurement {
	var ms []store.Measurement
	for _, size := range []int{1024, 16384} {
		for rep := range 5 {
			p := protocol.Point{Mode: "afalg", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: size, Threads: 1,
				Repeat: rep, BytesPerSec: 1e8 * (1 + 0.002*float64(rep)), CPUPct: 40}
			if v := uj[size] * (1 + 0.003*float64(rep)); v != 0 {
				p.EnergyUJPerByte = &v
			} else {
				p.EnergyUnknown = "the sensor vanished"
			}
			ms = append(ms, store.Measurement{ID: run*100 + int64(len(ms)), RunID: run, Board: "am64x", Point: p})
		}
	}
	return ms
}

// TestRegressEnergy: judged by energy, a rise in µJ/B is a regression and a fall an improvement, though the
// throughput did not move (and is unchanged by the default metric); a series whose run lost its energy is
// missing, with the reason noted.
func TestRegressEnergy(t *testing.T) {
	base := energyRun(1, map[int]float64{1024: 0.040, 16384: 0.010})
	cur := energyRun(2, map[int]float64{1024: 0.048, 16384: 0.008})
	verdicts := func(r *Regression) map[int]string {
		out := map[int]string{}
		for _, row := range r.Rows {
			out[row.BlockSize] = row.Verdict
		}
		return out
	}
	if got := verdicts(Regress(base, cur, nil, nil, RegressOptions{})); got[1024] != VerdictUnchanged || got[16384] != VerdictUnchanged {
		t.Errorf("throughput verdicts = %v, want unchanged", got)
	}
	r := Regress(base, cur, nil, nil, RegressOptions{Metric: MetricEnergy})
	if got := verdicts(r); got[1024] != VerdictRegressed || got[16384] != VerdictImproved {
		t.Errorf("energy verdicts = %v, want 1024 B regressed (+20%% µJ/B), 16384 B improved (−20%%)", got)
	}
	if !r.HasRegression() || r.Unit != UnitEnergy || r.Metric != MetricEnergy {
		t.Errorf("regression %v, unit %q, metric %q", r.HasRegression(), r.Unit, r.Metric)
	}
	var b bytes.Buffer
	if err := WriteRegression(&b, r, FormatText); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "0.0402 ±1% (5)") || !strings.Contains(out, "+20.0%") ||
		!strings.Contains(out, "lower is better") {
		t.Errorf("text does not show µJ/B medians, the rise and the direction:\n%s", out)
	}

	lost := energyRun(3, map[int]float64{1024: 0.040})
	r = Regress(base, lost, nil, nil, RegressOptions{Metric: MetricEnergy})
	if got := verdicts(r); got[16384] != VerdictMissing || got[1024] != VerdictUnchanged {
		t.Errorf("verdicts with the energy lost = %v, want 16384 B missing", got)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "current: am64x: 5 point(s) without energy left out: the sensor vanished") {
		t.Errorf("notes do not say what was left out: %q", r.Notes)
	}
	if r := Regress(base, cur, nil, nil, RegressOptions{Metric: "watts"}); !strings.Contains(strings.Join(r.Notes, "\n"), `metric "watts"`) {
		t.Errorf("an unknown metric is not said: %q", r.Notes)
	}
}

func TestCheckMetric(t *testing.T) {
	for in, want := range map[string]string{"": MetricThroughput, "throughput": MetricThroughput, "Energy": MetricEnergy} {
		if got, err := CheckMetric(in); err != nil || got != want {
			t.Errorf("CheckMetric(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := CheckMetric("joules"); err == nil || !strings.Contains(err.Error(), "throughput or energy") {
		t.Errorf("CheckMetric(joules) = %v", err)
	}
}
