package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestChangesEnergy: a series of µJ/B that rises 30 % after night 10 is a change whose Drops (the worsenings
// --fail-on-drop fails on) hold it with MetricEnergy, and not with the default metric, where a rise is better;
// one that falls is not a worsening of energy. The text prints µJ/B and says lower is better.
func TestChangesEnergy(t *testing.T) {
	night := func(v float64, i int) []float64 { return []float64{v * (1 + 0.004*float64(i%3-1))} }
	var rise, fall [][]float64
	for i := range 20 {
		r, f := 0.040, 0.040
		if i >= 10 {
			r, f = 0.052, 0.028
		}
		rise, fall = append(rise, night(r, i)), append(fall, night(f, i))
	}
	h := synthHistories(rise, fall) // 16 B rises, 32 B falls
	e := Changes(h, ChangeOptions{Metric: MetricEnergy})
	if len(e.Changes) != 2 {
		t.Fatalf("changes = %v, want one per series", e.Changes)
	}
	if d := e.Drops(0.05); len(d) != 1 || d[0].BlockSize != 16 || d[0].Unit != UnitEnergy {
		t.Errorf("energy worsenings = %v, want the 16 B rise in µJ/B", d)
	}
	if d := Changes(h, ChangeOptions{}).Drops(0.05); len(d) != 1 || d[0].BlockSize != 32 {
		t.Errorf("throughput drops = %v, want the 32 B fall", d)
	}
	var b bytes.Buffer
	if err := WriteChanges(&b, e, FormatText); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "0.0400 µJ/B") || !strings.Contains(out, "lower is better") {
		t.Errorf("text:\n%s", out)
	}
}
