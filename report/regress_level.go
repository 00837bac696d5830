package report

import (
	"slices"

	"github.com/fleetlab/fleet/report/stats"
)

// judgedLevel is the part of a series' baseline window that its run is judged against: the window's runs
// xs[From:To] (each the median of its repeats, oldest first).
type judgedLevel struct {
	From, To int
	// Cut is the change point at From, when one starts the level (nil: the level starts with the window).
	Cut *stats.ChangePoint
}

// chooseLevel picks the level of a window xs that a run whose median is y (0: none) is judged against. The
// change search runs on the window and the judged run together, so that a step is cut where it is even when
// the judged run is one of the runs that make it visible:
//
//   - a level is the runs since the newest change point, once stats.DefaultMinSegment baseline runs stand
//     after it: the step is established and the run is judged against the new level (the verdict says so);
//   - a change point with fewer baseline runs after it (the third night after a step, with the judged run
//     the third run of the new level): those runs are left out and the run is judged against the level
//     before the step;
//   - a step the search cannot see yet (the first and second night after it, 1 or 2 runs of the new level):
//     when the judged run and the 1 or 2 runs before it lie beyond the range of the level before them, all on
//     one side, by the range rule (beyondRange on them together: the threshold and Student's prediction test of
//     their mean at α), those runs are left out too. One odd night before the judged run is not: the judged run is back inside the range,
//     and it is judged against the whole window, its odd night included.
//
// So the first three nights after a step of 5 × the noise are judged against the level before it, and the
// fourth against the new level. Without a judged value the search runs on the window alone.
func chooseLevel(xs []float64, y, threshold, alpha float64) judgedLevel {
	n, minSeg := len(xs), stats.DefaultMinSegment
	lv := judgedLevel{To: n}
	all := xs
	if y > 0 {
		all = append(slices.Clip(xs), y)
	}
	cps := stats.ChangePoints(all, stats.SearchOptions{MinChange: DefaultMinChange})
	if k := len(cps); k > 0 {
		last := cps[k-1]
		if n-last.Index >= minSeg {
			lv.From, lv.Cut = last.Index, &cps[k-1]
			// the judged run's level is established, and a newer step may still start at its end
		} else {
			lv.To = last.Index
			if k > 1 {
				lv.From, lv.Cut = cps[k-2].Index, &cps[k-2]
			}
			return lv
		}
	}
	if y <= 0 {
		return lv
	}
	for t := minSeg - 1; t >= 1; t-- { // t baseline runs with the judged one stand apart
		to := n - t
		if to-lv.From < minSeg {
			continue
		}
		if apart(xs[lv.From:to], append(slices.Clone(xs[to:]), y), threshold, alpha) {
			lv.To = to
			break
		}
	}
	return lv
}

// apart reports whether the runs of tail stand apart from the level together: each of them beyond the level's
// range and its change from the level's median beyond the threshold, all on one side, and then the range rule
// on them together (beyondRange: the prediction test of their mean at α). Each must step by the threshold, so a
// run barely outside the level's range does not stand apart because the judged run beside it does; the test is
// taken together, so on a noisy level (3 runs of ±40 %) a run 85 % down that is not significant on its own at
// 2 degrees of freedom is, with the judged run beside it, and the second night after a step is not judged
// against a window that already holds the first.
func apart(level, tail []float64, threshold, alpha float64) bool {
	if len(level) == 0 {
		return false
	}
	b := stats.Sorted(level)
	m := stats.Median(b)
	side, _ := beyondRange(level, tail, threshold, alpha)
	for _, v := range tail {
		switch {
		case side < 0 && !(v < b[0] && v/m-1 < -threshold):
			return false
		case side > 0 && !(v > b[len(b)-1] && v/m-1 > threshold):
			return false
		}
	}
	return side != 0
}
