package report

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/fleetlab/fleet/report/stats"
	"github.com/fleetlab/fleet/store"
)

// DefaultMinChange is the smallest relative step Changes reports.
const DefaultMinChange = 0.05

// ChangeOptions tune Changes.
type ChangeOptions struct {
	DetectOptions
	// MinChange is the smallest |after/before − 1| reported; weaker change points are merged into their
	// neighbours. 0: DefaultMinChange; negative: report every significant change.
	MinChange float64
	// Since keeps the changes whose first run after the change started at or after it (zero: all). The search
	// still uses the whole history read, so a step early in the window has nights before it to compare with.
	Since time.Time
	// MaxRuns is the bound the history was read with (store.HistoryFilter.MaxRuns), named in the warning about
	// boards with more runs; 0 when unbounded.
	MaxRuns int
	// Metric is what the histories hold (metric.go): MetricThroughput ("") or MetricEnergy, µJ/B read with
	// store.HistoryFilter.Energy, lower better (Drops then returns the rises).
	Metric string
}

// Change is one change point of one series, as `fleet changes --format json` prints it.
type Change struct {
	Board     string `json:"board"`
	Mode      string `json:"mode"`
	Algorithm string `json:"algorithm"`
	Op        string `json:"op"`
	KeyBits   int    `json:"key_bits"`
	Curve     string `json:"curve,omitempty"`
	BlockSize int    `json:"block_size"`
	Threads   int    `json:"threads"`

	Run          int64     `json:"run"`  // first run after the change
	Date         time.Time `json:"date"` // its start
	Label        string    `json:"label,omitempty"`
	PreviousRun  int64     `json:"previous_run"` // last run before the change
	PreviousDate time.Time `json:"previous_date"`

	Before       float64  `json:"before"` // median of the nights since the previous change (or the start)
	After        float64  `json:"after"`  // median of the nights up to the next change (or the end)
	Unit         string   `json:"unit"`   // of before and after: bytes/s, or ops/s for asymmetric series
	Delta        float64  `json:"delta"`  // the step --min-change is held against: stats.ChangePoint.Step (Hodges–Lehmann), near after/before − 1
	P            float64  `json:"p"`      // t-test p-value between the neighbouring segments, Bonferroni-corrected for the splits tried
	NightsBefore int      `json:"nights_before"`
	NightsAfter  int      `json:"nights_after"`
	FactsChanged []string `json:"facts_changed"` // board facts that differ between PreviousRun and Run
	// NotJudged is set on a step that only shows when the invalid points are counted too
	// (ChangeReport.NotJudged): "invalid: background CPU 60–90 %". Drawn and listed so that a step among a
	// busy board's points is seen, never a verdict; empty on every change of ChangeReport.Changes.
	NotJudged string `json:"not_judged,omitempty"`
}

// Key is the change's series.
func (c Change) Key() SampleKey {
	return SampleKey{Board: c.Board, Mode: c.Mode, Algorithm: c.Algorithm, Op: c.Op, BlockSize: c.BlockSize,
		KeyBits: c.KeyBits, Curve: c.Curve, Threads: c.Threads}
}

// ChangeReport is the outcome of Changes: the changes by series, then run, and what the reader should know.
type ChangeReport struct {
	Changes []Change
	// NotJudged are the steps the same search finds when the invalid points are counted as well, where no
	// change of Changes is: for display only (a chart's "not judged: invalid" mark), never a verdict.
	NotJudged []Change
	Series    int // series read
	Searched  int // of them, searched: enough runs with a usable point
	Short     int // of them, too short to hold a change (fewer than 2 × MinSegment runs at all)
	// LeftOut says, per board, which series, runs and points the search did not use and why (too few runs,
	// invalid or failed points), with what to do: nothing is left out without a note.
	LeftOut  []LeftOut
	Options  ChangeOptions
	Warnings []string // data left out, bounded histories
}

// Drops returns the changes that make the series worse by at least drop (0.05: 5 %): that lower throughput, or
// raise µJ/B with MetricEnergy.
func (r *ChangeReport) Drops(drop float64) []Change {
	var out []Change
	for _, c := range r.Changes {
		worse := -c.Delta
		if lowerBetter(r.Options.Metric) {
			worse = c.Delta
		}
		if worse >= drop-1e-12 {
			out = append(out, c)
		}
	}
	return out
}

// nightValue is one run's sample of a series reduced to its median: the repeats of one run are one sample, so a
// run with five repeats weighs as much as a run with one.
type nightValue struct {
	run     int64
	median  float64
	index   int  // in the series' nights
	invalid bool // every point of the night was invalid (only in the display search's nights)
}

// Changes searches every series of h for change points (stats.ChangePoints), keeps those of at least MinChange, and names
// the facts that changed on the board between the runs on either side. Series are searched in parallel; the
// result does not depend on it.
func Changes(h *store.Histories, opts ChangeOptions) *ChangeReport {
	opts.DetectOptions = opts.DetectOptions.withDefaults()
	if opts.MinChange == 0 {
		opts.MinChange = DefaultMinChange
	}
	r := &ChangeReport{Options: opts, Series: len(h.Series)}
	results := make([]seriesOutcome, len(h.Series))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = seriesChanges(h, &h.Series[i], opts)
			}
		}()
	}
	for i := range h.Series {
		next <- i
	}
	close(next)
	wg.Wait()
	var acc leftOutAccount
	for i, res := range results {
		r.Changes = append(r.Changes, res.changes...)
		r.NotJudged = append(r.NotJudged, res.notJudged...)
		switch res.kind {
		case seriesShort:
			r.Short++
		case seriesSearched:
			r.Searched++
		}
		acc.add(h.Series[i].Key.Board, res)
		if res.warning != "" {
			r.Warnings = append(r.Warnings, res.warning)
		}
	}
	r.LeftOut = acc.leftOut(opts.MinSegment)
	sortChanges(r.Changes)
	sortChanges(r.NotJudged)
	var boards []string
	for b := range h.Boards {
		boards = append(boards, b)
	}
	sort.Strings(boards)
	for _, b := range boards {
		if hb := h.Boards[b]; hb.ReadRuns < hb.TotalRuns {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: only its newest %d of %d runs were searched (bounded at %d runs per board)",
				b, hb.ReadRuns, hb.TotalRuns, opts.MaxRuns))
		}
	}
	return r
}

// seriesChanges finds the changes of one series, and counts what it could not use.
func seriesChanges(h *store.Histories, s *store.SeriesHistory, opts ChangeOptions) seriesOutcome {
	key := keyOfSeries(s.Key)
	out := seriesOutcome{}
	var nights, all []nightValue // the nights with a usable point; with the invalid points counted too
	dropped := 0
	for i, n := range s.Nights {
		vs, bad := usableValues(n.Values)
		dropped += bad
		inv, _ := usableValues(n.InvalidValues)
		out.count(n, len(vs) > 0)
		if len(vs) > 0 {
			nights = append(nights, nightValue{run: n.RunID, median: median(vs), index: i})
		}
		if both := append(vs, inv...); len(both) > 0 {
			sort.Float64s(both)
			all = append(all, nightValue{run: n.RunID, median: median(both), index: i, invalid: len(vs) == 0})
		}
	}
	if dropped > 0 {
		what := "a throughput"
		if lowerBetter(opts.Metric) {
			what = "µJ/B" // at or below the board's idle power: within the sensor's noise
		}
		out.warning = fmt.Sprintf("%s: %d point(s) with %s of zero, below zero or not finite left out", key.Label(), dropped, what)
	}
	switch {
	case out.runs < 2*opts.MinSegment:
		out.kind = seriesShort
		return out
	case len(nights) < 2*opts.MinSegment:
		out.kind = seriesUnusable
	default:
		out.kind = seriesSearched
		out.changes = nightChanges(h, s, key, nights, opts)
	}
	if out.invalidRuns > 0 && len(all) >= 2*opts.MinSegment {
		out.notJudged = notJudgedChanges(h, s, key, all, out.changes, opts, out.causes())
	}
	return out
}

// usableValues are the throughputs a sample can hold, sorted: positive and finite; bad counts the others.
func usableValues(values []float64) (vs []float64, bad int) {
	for _, v := range values {
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			vs = append(vs, v)
		} else {
			bad++
		}
	}
	sort.Float64s(vs)
	return vs, bad
}

// nightChanges searches the per-run medians of nights and describes each change it keeps.
func nightChanges(h *store.Histories, s *store.SeriesHistory, key SampleKey, nights []nightValue, opts ChangeOptions) []Change {
	xs := make([]float64, len(nights))
	for i, n := range nights {
		xs[i] = n.median
	}
	var changes []Change
	cps := searchChanges(xs, opts.DetectOptions, opts.MinChange)
	for i, cp := range cps {
		lo, hi := 0, len(xs)
		if i > 0 {
			lo = cps[i-1].Index
		}
		if i+1 < len(cps) {
			hi = cps[i+1].Index
		}
		before, after := stats.Median(stats.Sorted(xs[lo:cp.Index])), stats.Median(stats.Sorted(xs[cp.Index:hi]))
		prev, first := nights[cp.Index-1], nights[cp.Index]
		run, prevRun := h.Runs[first.run], h.Runs[prev.run]
		if !opts.Since.IsZero() && run.Started.Before(opts.Since) {
			continue
		}
		c := Change{Board: key.Board, Mode: key.Mode, Algorithm: key.Algorithm, Op: key.Op, KeyBits: key.KeyBits,
			Curve: key.Curve, BlockSize: key.BlockSize, Threads: key.Threads,
			Run: first.run, Date: run.Started.UTC(), Label: run.Label, PreviousRun: prev.run, PreviousDate: prevRun.Started.UTC(),
			Before: before, After: after, Unit: "bytes/s", Delta: cp.Step, P: cp.P,
			NightsBefore: cp.Index - lo, NightsAfter: hi - cp.Index}
		switch {
		case lowerBetter(opts.Metric):
			c.Unit = UnitEnergy
		case key.Asym():
			c.Unit = "ops/s"
		}
		c.FactsChanged = factsChanged(h, s, prev, first, key)
		changes = append(changes, c)
	}
	return changes
}

// sortChanges orders changes by series, then run.
func sortChanges(cs []Change) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Key() != b.Key() {
			return keyLess(a.Key(), b.Key())
		}
		return a.Run < b.Run
	})
}

// keyOfSeries is the sample key of a stored series (threads 0 counts as 1, as keyOf does).
func keyOfSeries(k store.SeriesKey) SampleKey {
	t := k.Threads
	if t == 0 {
		t = 1
	}
	return SampleKey{Board: k.Board, Mode: k.Mode, Algorithm: k.Algorithm, Op: k.Op, BlockSize: k.BlockSize,
		KeyBits: k.KeyBits, Curve: k.Curve, Threads: t}
}
