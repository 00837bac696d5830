package stats

import (
	"math"
	"testing"
)

// TestStudentTwoSidedP against the tables' critical values: each t is the two-sided 5 % or 1 % point of its df.
func TestStudentTwoSidedP(t *testing.T) {
	for _, c := range []struct{ t, df, want float64 }{
		{12.706, 1, 0.05}, {2.776, 4, 0.05}, {4.604, 4, 0.01}, {2.228, 10, 0.05}, {2.042, 30, 0.05},
		{1.95996, 1e7, 0.05}, {0, 5, 1}, {math.Inf(1), 3, 0}, {3, 0, 1},
	} {
		if got := StudentTwoSidedP(c.t, c.df); math.Abs(got-c.want) > 2e-4 {
			t.Errorf("StudentTwoSidedP(%g, %g) = %.6f, want %g", c.t, c.df, got, c.want)
		}
	}
}

// TestMinP: the smallest p of the U test is reached by the most extreme ordering, and UTest gives exactly it.
func TestMinP(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		want   float64
	}{{3, 3, 0.1}, {4, 4, 2.0 / 70}, {2, 8, 2.0 / 45}, {1, 10, 2.0 / 11}, {0, 5, 1}, {1, 1, 1},
		{1, 60, 0.0938}, // beyond the exact limit: the normal approximation cannot reach 2/61
	} {
		if got := MinP(c.n1, c.n2); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("MinP(%d, %d) = %g, want %g", c.n1, c.n2, got, c.want)
		}
		if c.n1 > 0 && c.n2 > 0 && c.want < 1 {
			if got := UTest(seq(1, c.n1), seq(100, 99+c.n2)); math.Abs(got-c.want) > 1e-4 {
				t.Errorf("UTest of %d below %d = %g, want MinP %g", c.n1, c.n2, got, c.want)
			}
		}
	}
}

func TestMADOfDifferences(t *testing.T) {
	xs := []float64{100, 101, 100, 101, 100, 50, 50.5, 50}
	if got := MADOfDifferences(xs); math.Abs(got-0.0199) > 0.0005 {
		t.Errorf("MADOfDifferences = %g, want about 0.0199: the ±1 %% alternation, which the step, one difference of seven, does not move", got)
	}
}
