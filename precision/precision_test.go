package precision

import (
	"math"
	"testing"
)

// The ranks and coverages of the distribution-free 95 % interval of the median, as tabulated (Conover,
// Practical Nonparametric Statistics, table A3; Nair 1940): [x(j), x(k)] with P(j ≤ B < k) for B ~ Bin(n, ½).
// n = 18 and 19 worked by hand: P(B ≤ 4) = (1+18+153+816+3060)/2¹⁸ and (1+19+171+969+3876)/2¹⁹.
func TestRanksMatchBinomialTable(t *testing.T) {
	for _, tc := range []struct {
		n, j, k  int
		coverage float64
	}{
		{6, 1, 6, 0.96875}, {7, 1, 7, 0.984375}, {8, 1, 8, 0.9921875}, {9, 2, 8, 0.9609375},
		{10, 2, 9, 0.978515625}, {11, 2, 10, 0.98828125}, {12, 3, 10, 0.96142578125}, {13, 3, 11, 0.977539},
		{14, 3, 12, 0.987061}, {15, 4, 12, 0.964844}, {16, 4, 13, 0.978729}, {17, 5, 13, 0.950958},
		{18, 5, 14, 0.969116}, {19, 5, 15, 0.980789}, {20, 6, 15, 0.958611}, {50, 18, 33, 0.967160},
		{100, 40, 61, 0.964800},
	} {
		j, k, ok := Ranks(tc.n)
		if !ok || j != tc.j || k != tc.k {
			t.Errorf("Ranks(%d) = %d, %d, %v, want %d, %d, true", tc.n, j, k, ok, tc.j, tc.k)
		}
		if got := Coverage(tc.n, tc.j); math.Abs(got-tc.coverage) > 5e-6 {
			t.Errorf("Coverage(%d, %d) = %.6f, want %.6f", tc.n, tc.j, got, tc.coverage)
		}
		if got := Coverage(tc.n, tc.j+1); got >= Confidence {
			t.Errorf("Coverage(%d, %d) = %.6f: a narrower interval would do, Ranks is not the narrowest", tc.n, tc.j+1, got)
		}
	}
}

func TestNoIntervalBelowSixRepeats(t *testing.T) {
	for n := 0; n < MinN; n++ {
		if _, _, ok := Ranks(n); ok {
			t.Errorf("Ranks(%d) ok: no 95 %% interval exists below %d repeats", n, MinN)
		}
	}
	if got, want := Coverage(5, 1), 0.9375; got != want {
		t.Errorf("Coverage(5, 1) = %v, want %v (why MinN is 6)", got, want)
	}
	if iv := MedianCI([]float64{1, 1, 1, 1, 1}); iv.OK || !math.IsInf(iv.HalfPct(), 1) || iv.Reached(50) {
		t.Errorf("five equal repeats: %+v, half %v: reached a target without an interval", iv, iv.HalfPct())
	}
}

func TestMedianCI(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sorted []float64
		median float64
		half   float64 // percent
	}{
		{"six", []float64{98, 99, 100, 100, 101, 103}, 100, 3},
		{"seven: the extremes bound it", []float64{990, 995, 1000, 1000, 1001, 1004, 1008}, 1000, 1},
		{"nine: x(2) and x(8)", []float64{50, 98, 99, 100, 100, 100, 101, 102, 300}, 100, 2},
		{"twelve: x(3) and x(10), even median", []float64{1, 2, 99, 99.5, 100, 100, 100, 100, 100.5, 101, 200, 300}, 100, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iv := MedianCI(tc.sorted)
			if !iv.OK || iv.Median != tc.median || math.Abs(iv.HalfPct()-tc.half) > 1e-9 {
				t.Errorf("MedianCI = %+v, half %v %%, want median %v ±%v %%", iv, iv.HalfPct(), tc.median, tc.half)
			}
			if !iv.Reached(tc.half) || iv.Reached(tc.half*0.99) {
				t.Errorf("Reached around %v %% is wrong", tc.half)
			}
		})
	}
}

func TestParseRefusesOutOfRange(t *testing.T) {
	for _, s := range []string{"0", "0%", "-1", "100", "100%", "250", "NaN", "nan%", "Inf", "", "%", "two"} {
		if v, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", s, v)
		}
	}
	for s, want := range map[string]float64{"1%": 1, "1": 1, "0.5 %": 0.5, " 2 % ": 2, "99.9": 99.9} {
		if v, err := Parse(s); err != nil || v != want {
			t.Errorf("Parse(%q) = %v, %v, want %v", s, v, err, want)
		}
	}
}

func TestCheckMaxRepeat(t *testing.T) {
	for n, ok := range map[int64]bool{0: false, -3: false, 5: false, 6: true, 20: true, 1000: true, 1001: false, 1 << 40: false} {
		if err := CheckMaxRepeat(n); (err == nil) != ok {
			t.Errorf("CheckMaxRepeat(%d) = %v, want ok %v", n, err, ok)
		}
	}
}

func TestFlagRoundTrip(t *testing.T) {
	f := Flag(0.5, 20)
	if want := "precision-target: ±0.5 % within 20 repeats"; f != want {
		t.Errorf("Flag = %q, want %q", f, want)
	}
	got, ok := ParseFlags([]string{"default-3s: x", f})
	if !ok || got != (Target{Pct: 0.5, MaxRepeat: 20}) {
		t.Errorf("ParseFlags = %+v, %v", got, ok)
	}
	if _, ok := ParseFlags([]string{"precision-target: ±0 % within 20 repeats", "other"}); ok {
		t.Error("ParseFlags accepted a 0 % target")
	}
}

// TestCoverageLargeN checks the scaled recurrence against the tail summed in logarithms, where 2⁻ⁿ alone would
// underflow a float64.
func TestCoverageLargeN(t *testing.T) {
	logChoose := func(n, k int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		return a - b - c
	}
	for _, n := range []int{1000, 1500, 5000} {
		j, _, _ := Ranks(n)
		for _, jj := range []int{j - 5, j, j + 1} {
			tail := 0.0
			for i := 0; i < jj; i++ {
				tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
			}
			if got, want := Coverage(n, jj), 1-2*tail; math.Abs(got-want) > 1e-9 {
				t.Errorf("Coverage(%d, %d) = %.12f, want %.12f", n, jj, got, want)
			}
		}
		if c := Coverage(n, j); c < Confidence || Coverage(n, j+1) >= Confidence {
			t.Errorf("Ranks(%d) j = %d: coverage %.4f, next %.4f", n, j, c, Coverage(n, j+1))
		}
	}
}
