package report

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// noise is a fixed draw of standard normal noise, one value a night, so that the known-truth histories below
// are the same every time and look like a board's: no two nights alike, none beyond 1.3 σ.
var noise = []float64{0.3, -0.8, 1.1, -0.2, 0.6, -1.3, 0.1, 0.9, -0.5, 0.4, -0.9, 0.7, -0.1, 1.0, -0.6, 0.2}

// night is run's one-repeat nightly point of am64x cpu aes-128-cbc at 16 KiB: 100 MB/s × level × (1 + σ z).
func night(run int64, level, z, sigma float64) store.Measurement {
	return store.Measurement{RunID: run, Board: "am64x", Point: protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc",
		Op: "encrypt", BlockSize: 16384, Threads: 1, Timing: "wall", BytesPerSec: 100e6 * level * (1 + sigma*z)}}
}

// judgeNight judges night judged (1-based) of a history whose levels are given per night, against the nights
// before it as a nightly window, with noise σ.
func judgeNight(levels []float64, zs []float64, sigma float64, judged int) RegressRow {
	var base []store.Measurement
	var runs []int64
	for i := range judged - 1 {
		base = append(base, night(int64(i+1), levels[i], zs[i], sigma))
		runs = append(runs, int64(i+1))
	}
	cur := []store.Measurement{night(int64(judged), levels[judged-1], zs[judged-1], sigma)}
	r := Regress(base, cur, nil, nil, RegressOptions{Baselines: map[string]BaselineWindow{"am64x": {Label: "nightly", Runs: runs}}})
	return r.Rows[0]
}

// nightLevels is a history of n nights at level 1, then at level 1+step from night from on.
func nightLevels(n, from int, step float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
		if i+1 >= from {
			out[i] = 1 + step
		}
	}
	return out
}

// TestRegressNightsAfterStep is the known truth of a step of 5 × the noise (2 % noise, ±10 %) after 7 steady
// one-repeat nights: nights 1, 2 and 3 after it are judged against nights 1–7 (the new nights left out) and
// read regressed (improved, up), though the U test cannot reach α with 1 sample and a window that mixed the
// levels called them unchanged; night 4 is judged against the new level, says so, and is unchanged.
func TestRegressNightsAfterStep(t *testing.T) {
	for _, tc := range []struct {
		name      string
		step      float64
		verdict   string
		stepShown string
	}{
		{"down", -0.10, VerdictRegressed, "−10"},
		{"up", +0.10, VerdictImproved, "+10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			levels := nightLevels(11, 8, tc.step)
			for after := 1; after <= 3; after++ {
				x := judgeNight(levels, noise, 0.02, 7+after)
				b := x.Baseline
				if x.Verdict != tc.verdict {
					t.Errorf("night %d after the step: %s (%s, p %.3f, baseline %s), want %s", after, x.Verdict, x.Delta, x.P, b, tc.verdict)
				}
				if !slices.Equal(b.Runs, []int64{1, 2, 3, 4, 5, 6, 7}) || b.Since != 0 {
					t.Errorf("night %d after the step: baseline %s, want nightly runs 1–7 (the level before the step)", after, b)
				}
				var left []int64
				for r := int64(8); r < int64(7+after); r++ {
					left = append(left, r)
				}
				if !slices.Equal(b.LeftOut, left) {
					t.Errorf("night %d after the step: left out %v, want %v", after, b.LeftOut, left)
				}
			}
			x := judgeNight(levels, noise, 0.02, 11)
			if x.Verdict != VerdictUnchanged || x.Baseline.Since != 8 || !slices.Equal(x.Baseline.Runs, []int64{8, 9, 10}) {
				t.Errorf("night 4 after the step: %s against %s, want unchanged against runs 8–10 since the change at run 8", x.Verdict, x.Baseline)
			}
			want := fmt.Sprintf("unchanged against the new level since run 8 (%s.", tc.stepShown)
			if note := strings.Join(x.Notes, "\n"); !strings.Contains(note, want) || !strings.Contains(note, "see fleet changes") {
				t.Errorf("night 4 after the step: notes %q do not say %q… see fleet changes", note, want)
			}
		})
	}
}

// TestRegressReportedMix is the history that showed the mixed window: nights 1–3 with AES-NI (360 MB/s),
// nights 4–6 without (118 MB/s), three repeats each. Night 6 pooled with 1–5 gave a baseline of ±124 % and
// "unchanged"; cut with the judged night counted, it is judged against nights 1–3 and regressed.
func TestRegressReportedMix(t *testing.T) {
	var base []store.Measurement
	var runs []int64
	point := func(run int64, rep int, bps float64) store.Measurement {
		m := night(run, 1, 0, 0)
		m.Repeat, m.BytesPerSec = rep, bps*(1+0.01*float64(rep-1))
		return m
	}
	for run := int64(1); run <= 5; run++ {
		for rep := range 3 {
			base = append(base, point(run, rep, map[bool]float64{true: 360e6, false: 118e6}[run <= 3]))
		}
		runs = append(runs, run)
	}
	cur := []store.Measurement{point(6, 0, 118e6), point(6, 1, 118e6), point(6, 2, 118e6)}
	r := Regress(base, cur, nil, nil, RegressOptions{Baselines: map[string]BaselineWindow{"am64x": {Label: "nightly", Runs: runs}}})
	x := r.Rows[0]
	if x.Verdict != VerdictRegressed || !slices.Equal(x.Baseline.Runs, []int64{1, 2, 3}) || !slices.Equal(x.Baseline.LeftOut, []int64{4, 5}) {
		t.Errorf("night 6: %s (%s) against %s, want regressed against runs 1–3 with 4–5 left out", x.Verdict, x.Delta, x.Baseline)
	}
	if got, want := x.Baseline.String(), "nightly runs 1–3, 3 runs, 9 samples (runs 4–5 left out: with the judged run they "+
		"stand apart from the level before, a step not yet established)"; got != want {
		t.Errorf("baseline = %q, want %q", got, want)
	}
}

// TestRegressAfterOutlierNight: one busy night (−40 %) in a steady window is no step: the night after it, back
// at the level, is judged against the whole window, the odd night included, and is unchanged.
func TestRegressAfterOutlierNight(t *testing.T) {
	levels := nightLevels(9, 100, 0)
	levels[7] = 0.6
	x := judgeNight(levels, noise, 0.02, 9)
	if x.Verdict != VerdictUnchanged || len(x.Baseline.Runs) != 8 || x.Baseline.LeftOut != nil || x.Baseline.Since != 0 {
		t.Errorf("the night after an odd one: %s against %s, want unchanged against runs 1–8", x.Verdict, x.Baseline)
	}
	// and the odd night itself, judged against the 7 before it, is far outside: regressed
	if x := judgeNight(levels, noise, 0.02, 8); x.Verdict != VerdictRegressed {
		t.Errorf("the odd night: %s, want regressed", x.Verdict)
	}
}

// TestRegressOneSampleFarOutside: one sample against a window of 10 (no outcome of the U test reaches α) is
// regressed when it lies below every baseline sample and Student's prediction test says so, with that p; one
// within the window's spread is unchanged, and one just beyond the range in noisy history stays unconfirmed.
func TestRegressOneSampleFarOutside(t *testing.T) {
	levels := nightLevels(11, 100, 0)
	levels[10] = 0.7
	x := judgeNight(levels, noise, 0.02, 11)
	if x.Verdict != VerdictRegressed || x.Delta != "−31.5%" || x.P >= 0.05 || !strings.Contains(strings.Join(x.Notes, "\n"), "judged by range: below every baseline sample") {
		t.Errorf("30 %% below a window of 10: %s %s p %.3g %q, want regressed by range with p < 0.05", x.Verdict, x.Delta, x.P, x.Notes)
	}
	levels[10] = 1
	if x := judgeNight(levels, noise, 0.02, 11); x.Verdict != VerdictUnchanged {
		t.Errorf("a night within the spread: %s, want unchanged", x.Verdict)
	}
	// 10 % noise: a night 15 % down lies beyond the range, but well within what the noise does
	levels[10] = 0.85
	zs := slices.Clone(noise)
	zs[10] = 0
	if x := judgeNight(levels, zs, 0.10, 11); x.Verdict != VerdictUnconfirmed {
		t.Errorf("15 %% down in 10 %% noise: %s (p %.3f), want %s", x.Verdict, x.P, VerdictUnconfirmed)
	}
}

// TestRegressAfterPulse: a pulse of 3 slow nights (−30 %) that ended 3 nights before the judged one is not a
// level the judged night is held to: it is unchanged, against the level since the pulse ended when the change
// search cuts there, or against the window.
func TestRegressAfterPulse(t *testing.T) {
	levels := nightLevels(12, 100, 0)
	for i := 5; i < 8; i++ {
		levels[i] = 0.7
	}
	x := judgeNight(levels, noise, 0.02, 12)
	if x.Verdict != VerdictUnchanged {
		t.Errorf("after a pulse: %s (%s) against %s, want unchanged", x.Verdict, x.Delta, x.Baseline)
	}
	if s := x.Baseline.Since; s != 0 && s != 9 {
		t.Errorf("after a pulse: baseline since run %d, want the window or the level since run 9", s)
	}
}

// TestRangeRuleRecall measures the rules on simulated one-repeat nightlies (normal noise σ, 200 histories
// each, 7 steady nights, then a step of 5 σ down): the first three nights after the step must read regressed in
// at least 95 % of histories, and a night without a step must be called regressed or improved by the range rule
// (not the U test: one sample) in at most 2α of them. Measured: 97–100 % and 1.5–9 % (such nights failed the check
// before as well, "regressed (unconfirmed)": 7–34 % of them at σ 3–10 %, the same rate now).
func TestRangeRuleRecall(t *testing.T) {
	const histories = 200
	for _, sigma := range []float64{0.02, 0.05, 0.10} {
		found, false_ := [3]int{}, 0
		for seed := range histories {
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			zs := make([]float64, 11)
			for i := range zs {
				zs[i] = rng.NormFloat64()
			}
			levels := nightLevels(11, 8, -5*sigma)
			for after := 1; after <= 3; after++ {
				if judgeNight(levels, zs, sigma, 7+after).Verdict == VerdictRegressed {
					found[after-1]++
				}
			}
			if v := judgeNight(nightLevels(8, 100, 0), zs, sigma, 8).Verdict; v == VerdictRegressed || v == VerdictImproved {
				false_++
			}
		}
		t.Logf("σ %.0f %%: nights 1–3 after a 5σ step regressed in %v of %d; no step, judged by range %d", 100*sigma, found, histories, false_)
		for i, n := range found {
			if n < histories*95/100 {
				t.Errorf("σ %.0f %%: night %d after a 5σ step regressed in %d of %d histories, want ≥ 95 %%", 100*sigma, i+1, n, histories)
			}
		}
		if false_ > histories*2*5/100 {
			t.Errorf("σ %.0f %%: %d of %d nights without a step judged by range, want ≤ 2α", 100*sigma, false_, histories)
		}
	}
}

// TestChooseLevelNoisyLevel: the second night after a step on a noisy machine (a level of three runs spread
// ±40 %, as measured on a shared 2-core host: 392.8, 774.9, 845.2 MB/s, then 114.3 with AES-NI masked) leaves
// the first slow night out of the level: neither slow night is significant alone at 2 degrees of freedom
// (p ≈ 0.07), both are together. A level run barely outside the range beside a far judged run is kept.
func TestChooseLevelNoisyLevel(t *testing.T) {
	xs := []float64{392.8, 774.9, 845.2, 114.3}
	if lv := chooseLevel(xs, 83.79, 0.05, 0.05); lv.From != 0 || lv.To != 3 {
		t.Errorf("chooseLevel = %+v, want the level of runs 1–3 (To 3), the first slow night left out", lv)
	}
	// the fourth run a little below the others' range, the judged run far below: the fourth is the level's own
	xs = []float64{800, 810, 805, 798, 803, 807, 795}
	if lv := chooseLevel(xs, 120, 0.05, 0.05); lv.From != 0 || lv.To != len(xs) {
		t.Errorf("chooseLevel = %+v, want the whole window (To %d): 795 is no step", lv, len(xs))
	}
}
