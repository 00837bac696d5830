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
//     when the judged run and the 1 or 2 runs before it each lie beyond the range of the level before them, on
//     one side, by the range rule (beyondRange: the threshold and Student's prediction test at α), those runs are
//     left out too. One odd night before the judged run is not: the judged run is back inside the range,
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

// apart reports whether every run of tail, each on its own, lies beyond the level by the range rule, all on
// one side: a run barely outside the level's range does not stand apart because the judged run beside it does.
func apart(level, tail []float64, threshold, alpha float64) bool {
	first := 0
	for _, v := range tail {
		side, _ := beyondRange(level, []float64{v}, threshold, alpha)
		if side == 0 || first != 0 && side != first {
			return false
		}
		first = side
	}
	return true
}
