package report

import "testing"

// BenchmarkChanges measures the change search against its budget: 200 nights × 1,000 series searched in
// under 10 s on 2 cores (go test ./report -run '^$' -bench Changes -benchtime 3x -cpu 2). One op is the whole
// search; the series are am64x afalg aes-128-cbc at 1,000 block sizes, 2 % noise, with no change, one step, or
// two steps in every series.
func BenchmarkChanges(b *testing.B) {
	for _, bc := range []struct {
		name string
		lv   level
	}{
		{"no-change", steps(nil, nil)},
		{"one-step", steps([]int{120}, []float64{-0.12})},
		{"two-steps", steps([]int{60, 140}, []float64{-0.10, 0.08})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var series [][][]float64
			for k := range 1000 {
				series = append(series, synthSeries(uint64(k), 200, 1, 400e6, 0.02, bc.lv))
			}
			h := synthHistories(series...)
			var found int
			for b.Loop() {
				found = len(Changes(h, ChangeOptions{}).Changes)
			}
			b.ReportMetric(float64(found), "changes")
		})
	}
}
