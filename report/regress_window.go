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
	// Since is the first run after the change point that starts the level judged against (chooseLevel): the
	// window's runs before it were left out (0: no change in the window). Step is that change, as a ratio − 1
	// (the Hodges–Lehmann shift fleet changes reports): a new level is never taken up silently.
	Since int64   `json:"since,omitempty"`
	Step  float64 `json:"step,omitempty"`
	// LeftOut are the newest runs of the window that stand apart from the level with the judged run: a step
	// too new to be a level of its own (fewer than stats.DefaultMinSegment runs before the judged one), so
	// the run is judged against the level before it.
	LeftOut []int64 `json:"left_out,omitempty"`
	// Window is how many runs of the series the board's window held before it was cut.
	Window int `json:"window"`
}

// String is "nightly runs 12–21, 10 runs, 30 samples", "run 41, 5 samples", with "(the window's 5 runs since
// the change at run 17, −50.0%)" when a change point cut the window and "(runs 22–23 left out: …)" when a new
// step was.
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
		s += fmt.Sprintf(" (the window's %d runs since the change at run %d, %s)", len(b.Runs), b.Since, formatChange(b.Step))
	}
	if len(b.LeftOut) > 0 {
		they := map[bool]string{true: "it stands", false: "they stand"}[len(b.LeftOut) == 1]
		s += fmt.Sprintf(" (%s left out: with the judged run %s apart from the level before, a step not yet "+
			"established)", runSpan(b.LeftOut), they)
	}
	return s
}

// levelNote is the note of a row judged against a level a change point started or a step left aside: what
// the verdict is against, so that a step is never taken up, or passed over, silently. "" for neither.
func (b BaselineInfo) levelNote(verdict string) string {
	switch verdict {
	case VerdictImproved, VerdictUnchanged, VerdictRegressed, VerdictUnconfirmed, VerdictMaybeBetter:
	default:
		verdict = "judged"
	}
	if len(b.LeftOut) > 0 {
		return fmt.Sprintf("%s against the level before %s, which stand%s apart from it with this run: a step not yet "+
			"a level of its own (%d runs after it make one)", verdict, runSpan(b.LeftOut),
			map[bool]string{true: "s", false: ""}[len(b.LeftOut) == 1], stats.DefaultMinSegment)
	}
	if b.Since != 0 {
		return fmt.Sprintf("%s against the new level since run %d (%s: see fleet changes)", verdict, b.Since, formatChange(b.Step))
	}
	return ""
}

// addLevelNotes adds to each row judged against a level a change started, or with a step left out, the note
// that says so (levelNote), with the row's final verdict.
func (r *Regression) addLevelNotes() {
	for i := range r.Rows {
		if b := r.Rows[i].Baseline; b != nil {
			if note := b.levelNote(r.Rows[i].Verdict); note != "" {
				r.Rows[i].Notes = append(r.Rows[i].Notes, note)
			}
		}
	}
}

// runSpan is "run 4" or "runs 4–5" of consecutive window runs, oldest first.
func runSpan(runs []int64) string {
	if len(runs) == 1 {
		return fmt.Sprintf("run %d", runs[0])
	}
	return fmt.Sprintf("runs %d–%d", runs[0], runs[len(runs)-1])
}

// currentSegment keeps, of each series' baseline points, those of the level the judged run is judged against
// (chooseLevel; each run one sample, the median of its repeats, as `fleet changes` sees it): a window that spans
// a step would mix two levels, and the run would be judged against neither. cur holds the judged run's valid
// points; a series without one is cut as its baseline alone says. opts gives the windows (Baselines), the
// threshold and α. It returns the points kept and, per series,
// what they are.
func currentSegment(base, cur []store.Measurement, opts RegressOptions) ([]store.Measurement, map[SampleKey]*BaselineInfo) {
	bySeries, order := groupSeriesRuns(base)
	judged := map[SampleKey][]float64{}
	for i := range cur {
		if k, v := keyOf(cur[i]), value(&cur[i], keyOf(cur[i])); !cur[i].Failed && v > 0 {
			judged[k] = append(judged[k], v)
		}
	}
	info := map[SampleKey]*BaselineInfo{}
	kept := make([]int, 0, len(base)) // indexes into base
	for _, k := range order {
		s := bySeries[k]
		w := opts.Baselines[k.Board]
		var runs []int64 // the window's runs with values of this series, oldest first
		var xs []float64
		for _, id := range w.Runs {
			if vs := s.byRun[id]; len(vs) > 0 {
				runs = append(runs, id)
				xs = append(xs, stats.Median(stats.Sorted(vs)))
			}
		}
		var y float64
		if vs := judged[k]; len(vs) > 0 {
			y = stats.Median(stats.Sorted(vs))
		}
		lv := chooseLevel(xs, y, opts.Threshold, opts.Alpha)
		bi := &BaselineInfo{Label: w.Label, Window: len(runs), Runs: runs[lv.From:lv.To]}
		if lv.To < len(runs) {
			bi.LeftOut = runs[lv.To:]
		}
		if lv.Cut != nil {
			bi.Since, bi.Step = runs[lv.From], lv.Cut.Step
		}
		// window positions of the level's first run and of the first run left out: failed points of the runs
		// between are kept with them
		from, to := 0, len(w.Runs)
		if lv.From > 0 {
			from = slices.Index(w.Runs, runs[lv.From])
		}
		if lv.To < len(runs) {
			to = slices.Index(w.Runs, runs[lv.To])
		}
		for _, i := range s.ms {
			m := &base[i]
			if pos := slices.Index(w.Runs, m.RunID); pos >= 0 && (pos < from || pos >= to) {
				continue // a run before the level's change, or one of a step left out
			}
			if !m.Failed {
				bi.Samples++
			}
			kept = append(kept, i)
		}
		if len(w.Runs) == 0 { // no window given: every run of the points, as they come
			bi.Runs, bi.LeftOut = nil, nil
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

// seriesRuns are the baseline points of one series: their indexes into base and, per run, the throughputs of
// those that did not fail.
type seriesRuns struct {
	byRun map[int64][]float64
	ms    []int
}

// groupSeriesRuns groups base by series, in the order the series first appear.
func groupSeriesRuns(base []store.Measurement) (map[SampleKey]*seriesRuns, []SampleKey) {
	bySeries := map[SampleKey]*seriesRuns{}
	var order []SampleKey
	for i := range base {
		m := &base[i]
		k := keyOf(*m)
		s := bySeries[k]
		if s == nil {
			s = &seriesRuns{byRun: map[int64][]float64{}}
			bySeries[k] = s
			order = append(order, k)
		}
		s.ms = append(s.ms, i)
		if v := value(m, k); !m.Failed && v > 0 {
			s.byRun[m.RunID] = append(s.byRun[m.RunID], v)
		}
	}
	return bySeries, order
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
