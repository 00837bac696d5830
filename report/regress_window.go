package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/report/stats"
	"github.com/fleetlab/fleet/store"
)

// BaselineWindow is one board's baseline as the store resolved it (store.Baselines.Window and Label): the runs
// whose points are pooled, oldest first, and the label they were chosen by ("" for a run id, previous or latest).
type BaselineWindow struct {
	Label string
	Runs  []int64
}

// BaselineInfo says what one series was judged against, as `fleet regress` prints it: "nightly runs 12–21,
// 10 runs, 30 samples".
type BaselineInfo struct {
	Label   string  `json:"label,omitempty"`
	Runs    []int64 `json:"runs"`    // the runs whose points were pooled, oldest first
	Samples int     `json:"samples"` // the points pooled: neither failed nor invalid
	// Since is the first run after the newest change point the change search found in the board's window: the
	// runs before it were left out, so the baseline is the current level only (0: no change in the window).
	Since int64 `json:"since,omitempty"`
	// Window is how many runs the board's window held before the change point cut it.
	Window int `json:"window"`
}

// String is "nightly runs 12–21, 10 runs, 30 samples", "run 41, 5 samples", with "(runs since the change at run 17
// of 10)" when a change point cut the window.
func (b BaselineInfo) String() string {
	var s string
	switch n := len(b.Runs); {
	case n == 0:
		return "no runs"
	case n == 1 && b.Label == "":
		s = fmt.Sprintf("run %d, %s", b.Runs[0], plural(b.Samples, "sample"))
	case n == 1:
		s = fmt.Sprintf("%s run %d, 1 run, %s", b.Label, b.Runs[0], plural(b.Samples, "sample"))
	default:
		s = fmt.Sprintf("%s runs %d–%d, %d runs, %s", b.Label, b.Runs[0], b.Runs[n-1], n, plural(b.Samples, "sample"))
		s = strings.TrimPrefix(s, " ")
	}
	if b.Since != 0 {
		s += fmt.Sprintf(" (the window's %d runs since the change at run %d)", len(b.Runs), b.Since)
	}
	return s
}

// currentSegment keeps, of each series' baseline points, those of the runs since the newest change point the
// change search finds in the board's window (each run one sample, the median of its repeats, as `fleet changes`
// sees it): a window that spans a step would mix two levels, and the run would be judged against neither. It
// returns the points kept and, per series, what they are.
func currentSegment(base []store.Measurement, windows map[string]BaselineWindow) ([]store.Measurement, map[SampleKey]*BaselineInfo) {
	type series struct {
		byRun map[int64][]float64
		ms    []int // indexes into base
	}
	bySeries := map[SampleKey]*series{}
	var order []SampleKey
	for i := range base {
		m := &base[i]
		k := keyOf(*m)
		s := bySeries[k]
		if s == nil {
			s = &series{byRun: map[int64][]float64{}}
			bySeries[k] = s
			order = append(order, k)
		}
		s.ms = append(s.ms, i)
		if v := value(m, k); !m.Failed && v > 0 {
			s.byRun[m.RunID] = append(s.byRun[m.RunID], v)
		}
	}
	info := map[SampleKey]*BaselineInfo{}
	kept := make([]int, 0, len(base)) // indexes into base
	for _, k := range order {
		s := bySeries[k]
		w := windows[k.Board]
		var runs []int64 // the window's runs with values of this series, oldest first
		var xs []float64
		for _, id := range w.Runs {
			if vs := s.byRun[id]; len(vs) > 0 {
				runs = append(runs, id)
				xs = append(xs, stats.Median(stats.Sorted(vs)))
			}
		}
		bi := &BaselineInfo{Label: w.Label, Window: len(runs)}
		from := 0
		if cps := stats.ChangePoints(xs, stats.SearchOptions{MinChange: DefaultMinChange}); len(cps) > 0 {
			from = cps[len(cps)-1].Index
			bi.Since = runs[from]
		}
		bi.Runs = runs[from:]
		cut := slices.Index(w.Runs, bi.Since) // −1 when no change point cut the window
		for _, i := range s.ms {
			m := &base[i]
			if cut >= 0 && slices.Index(w.Runs, m.RunID) < cut {
				continue // a run before the change
			}
			if !m.Failed {
				bi.Samples++
			}
			kept = append(kept, i)
		}
		if len(w.Runs) == 0 { // no window given: every run of the points, as they come
			bi.Runs = nil
			for _, i := range s.ms {
				if !slices.Contains(bi.Runs, base[i].RunID) {
					bi.Runs = append(bi.Runs, base[i].RunID)
				}
			}
			bi.Window = len(bi.Runs)
		}
		info[k] = bi
	}
	if len(kept) == len(base) {
		// Nothing cut: base as it is. Its points are in another order than kept's (by series), but every
		// reader groups them by series, and each series' points are in the same order either way.
		return base, info
	}
	out := make([]store.Measurement, len(kept))
	for j, i := range kept {
		out[j] = base[i]
	}
	return out, info
}

// value is the throughput of m: bytes/s, or ops/s for an asymmetric series.
func value(m *store.Measurement, k SampleKey) float64 {
	if k.Asym() {
		return m.OpsPerSec
	}
	return m.BytesPerSec
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// baselineNotes says per board what its series were judged against: one line when they share a baseline
// ("baseline of am64x: nightly runs 12–21, 10 runs, 30 samples"), else one line per distinct baseline with the
// number of series.
func (r *Regression) baselineNotes() []string {
	type group struct {
		board, text string
		n           int
	}
	var groups []*group
	byText := map[string]*group{}
	boards := map[string]int{}
	for _, row := range r.Rows {
		if row.Baseline == nil {
			continue
		}
		id := row.Board + "\x00" + row.Baseline.String()
		g := byText[id]
		if g == nil {
			g = &group{board: row.Board, text: row.Baseline.String()}
			byText[id] = g
			groups = append(groups, g)
			boards[row.Board]++
		}
		g.n++
	}
	var out []string
	for _, g := range groups {
		if boards[g.board] == 1 {
			out = append(out, fmt.Sprintf("baseline of %s: %s", g.board, g.text))
		} else {
			out = append(out, fmt.Sprintf("baseline of %s, %s: %s", g.board, fmt.Sprintf("%d series", g.n), g.text))
		}
	}
	return out
}

// BaselineWindows is RegressOptions.Baselines for what the store resolved: every board's window and label.
func BaselineWindows(bl store.Baselines) map[string]BaselineWindow {
	out := make(map[string]BaselineWindow, len(bl.Window))
	for board, runs := range bl.Window {
		out[board] = BaselineWindow{Label: bl.Label, Runs: runs}
	}
	return out
}
