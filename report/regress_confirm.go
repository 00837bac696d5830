package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// Verdicts of a confirmation re-measure (fleet regress --confirm).
const (
	// VerdictConfirmed: the drop is still there when the series is measured again: a regression.
	VerdictConfirmed = "regressed (confirmed)"
	// VerdictTransient: the drop is gone on re-measure (a busy night, a one-off): not a failure.
	VerdictTransient = "transient"
)

// ConfirmTarget is what a confirmation re-measures on one board: the union of its regressed series.
type ConfirmTarget struct {
	Board      string
	Algorithms []string
	Modes      []string
	Sizes      []int
	Threads    int
}

// ConfirmTargets lists, per board, the series to measure again: those that regressed or regressed unconfirmed
// (a missing series has nothing to re-measure: its mode or algorithm did not run at all).
func (r *Regression) ConfirmTargets() []ConfirmTarget {
	byBoard := map[string]*ConfirmTarget{}
	for _, row := range r.Rows {
		if row.Verdict != VerdictRegressed && row.Verdict != VerdictUnconfirmed {
			continue
		}
		t := byBoard[row.Board]
		if t == nil {
			t = &ConfirmTarget{Board: row.Board, Threads: max(row.Threads, 1)}
			byBoard[row.Board] = t
		}
		t.Algorithms = addString(t.Algorithms, row.Algorithm)
		t.Modes = addString(t.Modes, row.Mode)
		if row.BlockSize > 0 && !containsInt(t.Sizes, row.BlockSize) {
			t.Sizes = append(t.Sizes, row.BlockSize)
		}
		t.Threads = max(t.Threads, row.Threads)
	}
	out := make([]ConfirmTarget, 0, len(byBoard))
	for _, t := range byBoard {
		sort.Ints(t.Sizes)
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Board < out[j].Board })
	return out
}

// Confirm re-judges each regressed row against the baseline with the points of a re-measure (again) instead of
// the run's: still worse than the threshold, it is "regressed (confirmed)"; not, "transient" and no longer a
// failure. Invalid re-measured points are left out; a row with no valid re-measured point keeps its verdict and
// says why. notMeasured names boards that could not be measured again, with the reason.
func (r *Regression) Confirm(base, again []store.Measurement, notMeasured map[string]string, opts RegressOptions) {
	if opts.Threshold <= 0 {
		opts.Threshold = r.Threshold
	}
	if opts.Alpha <= 0 {
		opts.Alpha = r.Alpha
	}
	base, _ = splitInvalid(base)
	base = r.judgedLevels(base) // the re-measure is judged against what the run was, not a level it would pick
	again, againInvalid := splitInvalid(again)
	baseSamples, _ := Group(base)
	againSamples, _ := Group(again)
	invalidSamples, _ := Group(againInvalid)
	index := func(ss []*Sample) map[SampleKey]*Sample {
		m := map[SampleKey]*Sample{}
		for _, s := range ss {
			m[s.Key] = s
		}
		return m
	}
	baseBy, againBy, invalidBy := index(baseSamples), index(againSamples), index(invalidSamples)
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Verdict != VerdictRegressed && row.Verdict != VerdictUnconfirmed {
			continue
		}
		if why, ok := notMeasured[row.Board]; ok {
			row.Notes = append(row.Notes, "not re-measured: "+why)
			continue
		}
		b, a := baseBy[row.SampleKey], againBy[row.SampleKey]
		if b == nil || a == nil || len(a.Values) == 0 {
			why := "no point measured again"
			if inv := invalidBy[row.SampleKey]; inv != nil {
				why = fmt.Sprintf("all %d points measured again were invalid: %s", inv.Invalid, strings.Join(inv.InvalidReasons, "; "))
			}
			row.Notes = append(row.Notes, "not confirmed: "+why)
			continue
		}
		re := judge(b, a, invalidBy[row.SampleKey], opts)
		note := fmt.Sprintf("re-measured: %s → %s (%s, n=%d)", formatThroughput(b.Summary().Median, r.Unit, row.Asym()),
			formatThroughput(a.Summary().Median, r.Unit, row.Asym()), formatChange(re.Change), a.Summary().N)
		if re.Regressed() {
			row.Verdict = VerdictConfirmed
		} else {
			row.Verdict = VerdictTransient
			note += ": the drop is gone"
		}
		row.Notes = append(row.Notes, note)
	}
}

// judgedLevels keeps, of the baseline points, those of the runs each row was judged against (its Baseline's
// Runs); a series without a row or a Baseline keeps all of its points.
func (r *Regression) judgedLevels(base []store.Measurement) []store.Measurement {
	runs := map[SampleKey][]int64{}
	for _, row := range r.Rows {
		if row.Baseline != nil {
			runs[row.SampleKey] = row.Baseline.Runs
		}
	}
	return slices.DeleteFunc(slices.Clone(base), func(m store.Measurement) bool {
		rs, ok := runs[keyOf(m)]
		return ok && !slices.Contains(rs, m.RunID)
	})
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
