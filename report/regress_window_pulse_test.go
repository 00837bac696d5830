package report

import (
	"testing"

	"github.com/fleetlab/fleet/store"
)

// TestRegressWindowPulse: a window of 20 nightlies with a pulse inside it (runs 8–13 at 16 % of the level, a
// regression reverted) is cut after the pulse's last edge, so the baseline is the 7 runs since it, at the level the
// judged run returns to: a run there is unchanged, and a run at the pulse's level again regresses against it.
// Binary segmentation alone saw no change in this window and pooled both levels.
func TestRegressWindowPulse(t *testing.T) {
	var base []store.Measurement
	var runs []int64
	for run := int64(1); run <= 20; run++ {
		level := 1.0
		if run >= 8 && run <= 13 {
			level = 0.16
		}
		base = append(base, nightPoints(run, level, 3)...)
		runs = append(runs, run)
	}
	opts := RegressOptions{Baselines: map[string]BaselineWindow{"am64x": {Label: "nightly", Runs: runs}}}
	r := Regress(base, nightPoints(21, 1, 3), nil, nil, opts)
	for _, x := range r.Rows {
		if x.Verdict != VerdictUnchanged {
			t.Errorf("%s: %s at the level after the pulse, want unchanged", x.Size(), x.Verdict)
		}
		if got, want := x.Baseline.String(), "nightly runs 14–20, 7 runs, 21 samples (the window's 7 runs since the change at run 14, +525.3%)"; got != want {
			t.Errorf("baseline = %q, want %q", got, want)
		}
		if x.Baseline.Window != 20 || x.Baseline.Since != 14 {
			t.Errorf("baseline %+v, want a window of 20 cut at run 14", *x.Baseline)
		}
	}
	for _, x := range Regress(base, nightPoints(21, 0.16, 3), nil, nil, opts).Rows {
		if x.Verdict != VerdictRegressed {
			t.Errorf("%s: %s back at the pulse's level, want regressed (p %.3f, n=%d+%d)", x.Size(), x.Verdict, x.P, x.Base.N, x.Cur.N)
		}
	}
}
