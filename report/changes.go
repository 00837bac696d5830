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
}

// Key is the change's series.
func (c Change) Key() SampleKey {
	return SampleKey{Board: c.Board, Mode: c.Mode, Algorithm: c.Algorithm, Op: c.Op, BlockSize: c.BlockSize,
		KeyBits: c.KeyBits, Curve: c.Curve, Threads: c.Threads}
}

// ChangeReport is the outcome of Changes: the changes by series, then run, and what the reader should know.
type ChangeReport struct {
	Changes  []Change
	Series   int // series searched
	Short    int // of them, too short to hold a change (fewer than 2 × MinSegment nights)
	Options  ChangeOptions
	Warnings []string // data left out, bounded histories
}

// Drops returns the changes that lower throughput by at least drop (0.05: 5 %).
func (r *ChangeReport) Drops(drop float64) []Change {
	var out []Change
	for _, c := range r.Changes {
		if -c.Delta >= drop-1e-12 {
			out = append(out, c)
		}
	}
	return out
}

// nightValue is one run's sample of a series reduced to its median: the repeats of one run are one sample, so a
// run with five repeats weighs as much as a run with one.
type nightValue struct {
	run    int64
	median float64
	index  int // in the series' nights
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
	type result struct {
		changes []Change
		short   bool
		warning string
	}
	results := make([]result, len(h.Series))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cs, short, warn := seriesChanges(h, &h.Series[i], opts)
				results[i] = result{cs, short, warn}
			}
		}()
	}
	for i := range h.Series {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, res := range results {
		r.Changes = append(r.Changes, res.changes...)
		if res.short {
			r.Short++
		}
		if res.warning != "" {
			r.Warnings = append(r.Warnings, res.warning)
		}
	}
	sort.SliceStable(r.Changes, func(i, j int) bool {
		a, b := r.Changes[i], r.Changes[j]
		if a.Key() != b.Key() {
			return keyLess(a.Key(), b.Key())
		}
		return a.Run < b.Run
	})
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

// seriesChanges finds the changes of one series. short reports a series too short to search.
func seriesChanges(h *store.Histories, s *store.SeriesHistory, opts ChangeOptions) (changes []Change, short bool, warning string) {
	key := keyOfSeries(s.Key)
	var nights []nightValue
	dropped := 0
	for i, n := range s.Nights {
		var vs []float64
		for _, v := range n.Values {
			if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
				vs = append(vs, v)
			} else {
				dropped++
			}
		}
		if len(vs) == 0 {
			continue
		}
		sort.Float64s(vs)
		nights = append(nights, nightValue{run: n.RunID, median: median(vs), index: i})
	}
	if dropped > 0 {
		warning = fmt.Sprintf("%s: %d point(s) with a throughput of zero, below zero or not finite left out", key.Label(), dropped)
	}
	if len(nights) < 2*opts.MinSegment {
		return nil, true, warning
	}
	xs := make([]float64, len(nights))
	for i, n := range nights {
		xs[i] = n.median
	}
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
		if key.Asym() {
			c.Unit = "ops/s"
		}
		c.FactsChanged = factsChanged(h, s, prev, first, key)
		changes = append(changes, c)
	}
	return changes, false, warning
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
