package report

import (
	"fmt"
	"math"
	"testing"
)

// TestChangesKnownTruth runs the whole search (medians per night, t-test splits, merging below 5 %) on synthetic
// series whose steps are known: each must be found at its run (±1) with its size (±3 points), and nothing else.
// Ten noise draws per case.
func TestChangesKnownTruth(t *testing.T) {
	type step struct {
		night int
		delta float64
	}
	for _, tc := range []struct {
		name  string
		n     int
		noise float64
		reps  int
		lv    level
		want  []step
	}{
		{"−12% in 2% noise after 17 nights", 40, 0.02, 1, steps([]int{17}, []float64{-0.12}), []step{{17, -0.12}}},
		{"−12% in 2% noise after 17 nights, 5 repeats", 30, 0.02, 5, steps([]int{17}, []float64{-0.12}), []step{{17, -0.12}}},
		{"−6% in 1% noise", 50, 0.01, 1, steps([]int{30}, []float64{-0.06}), []step{{30, -0.06}}},
		{"+8% in 2% noise", 50, 0.02, 1, steps([]int{12}, []float64{0.08}), []step{{12, 0.08}}},
		{"−20% in 5% noise", 60, 0.05, 1, steps([]int{40}, []float64{-0.20}), []step{{40, -0.20}}},
		{"+30% in 3% noise", 40, 0.03, 3, steps([]int{8}, []float64{0.30}), []step{{8, 0.30}}},
		{"−50% in 3% noise, 6 nights before the end", 40, 0.03, 1, steps([]int{34}, []float64{-0.50}), []step{{34, -0.50}}},
		{"two steps", 60, 0.02, 1, steps([]int{20, 42}, []float64{-0.10, 0.15}), []step{{20, -0.10}, {42, 0.15}}},
		{"two drops", 200, 0.02, 1, steps([]int{70, 150}, []float64{-0.08, -0.08}), []step{{70, -0.08}, {150, -0.08}}},
		{"no change, 1% noise", 60, 0.01, 1, steps(nil, nil), nil},
		{"no change, 5% noise", 60, 0.05, 1, steps(nil, nil), nil},
		{"outlier night", 40, 0.02, 1, func(i int) float64 {
			if i == 20 {
				return 0.6
			}
			return 1
		}, nil},
		{"outlier on the last night", 40, 0.02, 1, func(i int) float64 {
			if i == 39 {
				return 0.5
			}
			return 1
		}, nil},
		{"outliers on three separate nights", 80, 0.02, 1, func(i int) float64 {
			if i == 10 || i == 41 || i == 66 {
				return 0.7
			}
			return 1
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 10; seed++ {
				h := synthHistories(synthSeries(seed, tc.n, tc.reps, 400e6, tc.noise, tc.lv))
				r := Changes(h, ChangeOptions{})
				var got []step
				for _, c := range r.Changes {
					got = append(got, step{int(c.Run - 1), c.Delta})
				}
				if len(got) != len(tc.want) {
					t.Errorf("seed %d: found %v, want %v", seed, got, tc.want)
					continue
				}
				for i, w := range tc.want {
					if d := got[i].night - w.night; d < -1 || d > 1 {
						t.Errorf("seed %d: change %d at night %d, want %d ±1", seed, i, got[i].night, w.night)
					}
					if math.Abs(got[i].delta-w.delta) > 0.03 {
						t.Errorf("seed %d: change %d of %s, want %s ±3 points", seed, i, formatChange(got[i].delta), formatChange(w.delta))
					}
				}
			}
		})
	}
}

// TestChangesDrift: a slow drift of −15 % over 20 nights is reported as steps inside the drift that together
// account for it; a nightly job sees it although no single night moved more than 1 %.
func TestChangesDrift(t *testing.T) {
	drift := func(i int) float64 {
		switch {
		case i < 30:
			return 1
		case i < 50:
			return 1 - 0.15*float64(i-30)/20
		}
		return 0.85
	}
	for seed := uint64(1); seed <= 5; seed++ {
		r := Changes(synthHistories(synthSeries(seed, 80, 1, 400e6, 0.01, drift)), ChangeOptions{})
		if len(r.Changes) == 0 {
			t.Fatalf("seed %d: the drift was not found", seed)
		}
		total := 1.0
		for _, c := range r.Changes {
			if n := int(c.Run - 1); n < 29 || n > 51 {
				t.Errorf("seed %d: change at night %d, outside the drift (30–50)", seed, n)
			}
			if c.Delta >= 0 {
				t.Errorf("seed %d: change of %s in a falling drift", seed, formatChange(c.Delta))
			}
			total *= 1 + c.Delta
		}
		t.Logf("seed %d: %d change(s), together %s", seed, len(r.Changes), formatChange(total-1))
		if total > 0.92 {
			t.Errorf("seed %d: the changes add up to %s, want most of −15%%", seed, formatChange(total-1))
		}
	}
}

// TestChangesFalsePositiveRate measures how often a series without any change reports one: at the t-test's
// α alone (every significant change kept) and with the default 5 % smallest change. Noise 2 %, 60 nights.
func TestChangesFalsePositiveRate(t *testing.T) {
	const series = 100
	var raw, reported int
	for seed := uint64(1); seed <= series; seed++ {
		h := synthHistories(synthSeries(1000+seed, 60, 1, 400e6, 0.02, steps(nil, nil)))
		if len(Changes(h, ChangeOptions{MinChange: -1}).Changes) > 0 {
			raw++
		}
		if len(Changes(h, ChangeOptions{}).Changes) > 0 {
			reported++
		}
	}
	t.Logf("false positives over %d no-change series (60 nights, 2%% noise): %d at α %.2f alone, %d with the 5%% smallest change",
		series, raw, DefaultChangeAlpha, reported)
	// α 0.01 expects about one; five would be far outside what the test's α allows (binomial P(≥5) < 0.004)
	if raw >= 5 {
		t.Errorf("%d of %d no-change series reported a change at α %.2f", raw, series, DefaultChangeAlpha)
	}
	if reported > 0 {
		t.Errorf("%d of %d no-change series reported a change of at least 5%%", reported, series)
	}
}

// TestChangesDeterministic: the same history gives the same changes and p-values, whatever the parallelism.
func TestChangesDeterministic(t *testing.T) {
	var series [][][]float64
	for k := range 8 {
		series = append(series, synthSeries(uint64(k), 50, 1, 400e6, 0.03, steps([]int{25}, []float64{-0.07})))
	}
	first := fmt.Sprint(Changes(synthHistories(series...), ChangeOptions{}).Changes)
	for range 3 {
		if got := fmt.Sprint(Changes(synthHistories(series...), ChangeOptions{}).Changes); got != first {
			t.Fatalf("second search differs:\n%s\nfirst:\n%s", got, first)
		}
	}
}
