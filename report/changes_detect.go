package report

import "github.com/fleetlab/fleet/report/stats"

// The change search itself is stats.ChangePoints (report/stats/changes.go says why it is circular binary
// segmentation by t-tests, which finds pulses as well as steps, and not E-Divisive with a permutation test). A
// pulse gives two change points, one at each edge, each a step between its neighbouring segments, so everything
// here and in currentSegment (the baseline window since the newest change) reads it as two steps. Here it meets the series: each run is one sample, the median of its
// repeats, so a run with five repeats weighs as much as a run with one, and the result depends on the history
// alone — no seed, no dependence on which goroutine searched which series.
//
// Two rules of the search matter to a reader of its output, and the report's note states both: in a series of
// fewer than stats.ShortRuns runs (where every lab starts) a split whose step is at least --min-change is kept
// up to stats.ShortAlphaFactor × α, so that 3 runs on each side of a 5σ step find it (99.7 % of histories,
// against 86 % at α alone; the false positives stay under 1 % at every length, TestFalsePositiveRateShort);
// and the step a change reports (Change.Delta) is the Hodges–Lehmann shift between its neighbouring segments,
// the figure --min-change is held to, which an odd night does not move, so it can differ from the ratio of the
// before and after medians printed beside it by a point or so.

// Defaults of the change-point search, as stats defines them.
const (
	DefaultChangeAlpha = stats.DefaultAlpha
	DefaultMinSegment  = stats.DefaultMinSegment
)

// DetectOptions tune the change search. Zero fields take the defaults above.
type DetectOptions struct {
	Alpha      float64 // bound on the Bonferroni-corrected t-test p-value of a split
	MinSegment int     // runs on each side of a change
}

func (o DetectOptions) withDefaults() DetectOptions {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = DefaultChangeAlpha
	}
	if o.MinSegment < 2 {
		o.MinSegment = DefaultMinSegment
	}
	return o
}

// searchChanges finds the change points of the per-run medians xs, keeping steps of at least minChange
// (negative: every significant one).
func searchChanges(xs []float64, d DetectOptions, minChange float64) []stats.ChangePoint {
	return stats.ChangePoints(xs, stats.SearchOptions{Alpha: d.Alpha, MinSegment: d.MinSegment, MinChange: max(minChange, 0)})
}
