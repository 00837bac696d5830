package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// DefaultThreshold is the relative change below which a difference is not worth a verdict (5 %).
const DefaultThreshold = 0.05

// Verdicts of a regression check.
const (
	VerdictImproved    = "improved"
	VerdictUnchanged   = "unchanged"
	VerdictRegressed   = "regressed"
	VerdictUnconfirmed = "regressed (unconfirmed)" // worse than the threshold, too few samples to test: counts as a regression
	VerdictMaybeBetter = "improved (unconfirmed)"  // better than the threshold, too few samples to test
	VerdictMissing     = "missing"                 // the baseline had it, the run does not: counts as a regression
	VerdictNew         = "new"
	VerdictNoBaseline  = "no baseline" // a board of the run with no baseline run: not judged (Regression.NoBaseline)
	// VerdictInvalid: every point of the run in the series was judged invalid (busy, throttled board): not judged,
	// neither a regression nor a pass (exit 4 when nothing regressed).
	VerdictInvalid = "not judged: invalid"
	// VerdictWrongOutput: the path of the series gave a wrong output for a verification input (or failed or hung
	// under the concurrency check): a failure whatever the speed did, never an improvement.
	VerdictWrongOutput = "wrong output"
)

// RegressOptions tunes a regression check. Zero values take the defaults.
type RegressOptions struct {
	Threshold float64 // relative change that matters, 0.05 = 5 %
	Alpha     float64 // significance level of the U test, 0.05
	Unit      string  // throughput unit of the rendered numbers, MB/s
	// NoBaseline names the boards of the run that have no baseline, with the reason (store.Baselines.Missing):
	// their points are not judged, and the result lists them as "no baseline".
	NoBaseline map[string]string
	// SkippedBaselines names, per board, the newer runs passed over as invalid when the baseline was resolved
	// (store.Baselines.Skipped); they become notes.
	SkippedBaselines map[string][]string
	// InvalidBaseline are the points of those runs for the boards left without a baseline by them
	// (store.RegressionInput.Invalid): their evidence says how busy the board was.
	InvalidBaseline []store.Measurement
	// Baselines describes each board's baseline runs (store.Baselines.Window and Label). A series' baseline is
	// the runs of its board's window since the newest change point found in it (the current segment), pooled;
	// nil: the baseline points as given, pooled.
	Baselines map[string]BaselineWindow
	// Metric is what the series are judged by (metric.go): MetricThroughput ("", the default) or MetricEnergy,
	// µJ/B, lower better.
	Metric string
}

// RegressRow is the verdict on one series. Base and Cur summarize bytes per second, or operations per second for
// asymmetric series; nil when that side has no usable point.
type RegressRow struct {
	SampleKey
	Verdict string   `json:"verdict"`
	Base    *Summary `json:"base,omitempty"`
	Cur     *Summary `json:"cur,omitempty"`
	Change  float64  `json:"change"` // Cur.Median/Base.Median − 1
	// P is the two-sided Mann-Whitney U p-value, 1 when not testable; where no outcome of the U test could reach
	// α and the range rule judged the row (regress_outside.go), the p-value of its prediction test.
	P     float64  `json:"p"`
	Delta string   `json:"delta"` // benchstat style: "−25.0%", or "~" when not significant
	Notes []string `json:"notes,omitempty"`
	// Baseline says what the series was judged against: which runs, how many samples, and whether a change
	// point cut the window.
	Baseline *BaselineInfo `json:"baseline,omitempty"`
}

// Regressed reports whether the row counts as a regression for the exit code.
func (r RegressRow) Regressed() bool {
	return r.Verdict == VerdictRegressed || r.Verdict == VerdictUnconfirmed || r.Verdict == VerdictMissing ||
		r.Verdict == VerdictConfirmed || r.Verdict == VerdictWrongOutput
}

// EnvChange lists what differs between the facts of a board's baseline and current run.
type EnvChange struct {
	Board   string   `json:"board"`
	Changes []string `json:"changes"`
}

// NoBaseline is a board of the run that was not judged because it has no baseline, and why.
type NoBaseline struct {
	Board  string `json:"board"`
	Reason string `json:"reason"`
	// Invalid: the reference matched runs, but none had a valid point (a busy, throttled or hot board): not
	// judged for the board's state, which counts like an invalid series (exit 4, a JUnit error).
	Invalid bool `json:"invalid,omitempty"`
}

// Regression is the result of comparing a run against a baseline.
type Regression struct {
	Threshold   float64      `json:"threshold"`
	Alpha       float64      `json:"alpha"`
	Unit        string       `json:"unit"`
	Rows        []RegressRow `json:"rows"`
	Environment []EnvChange  `json:"environment"`
	Notes       []string     `json:"notes"`
	NoBaseline  []NoBaseline `json:"no_baseline,omitempty"` // boards not judged, by name; absent when all were
	// BaselineInvalid counts the series not judged because every baseline point of theirs was invalid.
	BaselineInvalid int `json:"baseline_invalid,omitempty"`
	// BaselineInvalidSeries are those series, so that JUnit and JSON name each (a CI job lists them).
	BaselineInvalidSeries []SampleKey `json:"baseline_invalid_series,omitempty"`
	// Invalid says, per board and side, how many points were invalid, why and what to do (regress_invalid.go).
	Invalid []InvalidCause `json:"invalid,omitempty"`
	// Metric is "energy" when the series were judged by µJ/B (Unit µJ/B, lower better); absent for throughput.
	Metric string `json:"metric,omitempty"`
}

// HasRegression reports whether any series regressed, regressed unconfirmed, or went missing.
func (r *Regression) HasRegression() bool {
	for _, row := range r.Rows {
		if row.Regressed() {
			return true
		}
	}
	return false
}

// Count returns how many rows have the verdict.
func (r *Regression) Count(verdict string) int {
	n := 0
	for _, row := range r.Rows {
		if row.Verdict == verdict {
			n++
		}
	}
	return n
}

// Regress judges the current measurements against the baseline, series by series. Facts are keyed by board
// name and may be nil or lack a board; they only feed the "environment changed" notes. Points of the boards in
// opts.NoBaseline are left out and those boards listed in NoBaseline instead.
//
// A series is judged by the Mann-Whitney U test at α and the threshold. Against a window (opts.Baselines) its
// baseline is one level, never a mix (chooseLevel, regress_level.go): the change search runs on the window's
// runs and the judged run together; the runs since the newest change point are the baseline once 3 baseline
// runs stand after it (the row's note names that level and its step), and the runs of a step too new for that
// (1–2 runs that, with the judged run, stand apart from the level before, or follow a change point) are left
// out, so the first three nights after a step are judged against the level before it. Where no outcome of
// the U test can reach α (one nightly sample against a window of 5: its smallest p is 2/6), the range rule
// decides (regress_outside.go): every judged sample beyond the baseline's range, on one side, the change
// beyond the threshold, and Student's prediction test on the logarithms below α make the row regressed or
// improved, with that test's p; a change beyond the threshold without them stays unconfirmed.
func Regress(base, cur []store.Measurement, baseFacts, curFacts map[string]*protocol.Facts, opts RegressOptions) *Regression {
	opts, refused := regressDefaults(opts)
	r := newRegression(opts, refused)
	base, cur = r.applyMetric(&opts, base, cur)
	cur = r.leaveOutNoBaseline(cur, opts)
	r.noteSkippedBaselines(opts.SkippedBaselines)
	wrong := wrongOutputs(cur)
	// invalid points are never judged, either side; the run's are grouped apart to say what was not judged
	base, baseInvalid := splitInvalid(base)
	cur, curInvalid := splitInvalid(cur)
	base, baselineOf := currentSegment(base, cur, opts)
	baseSamples, curSamples := r.groupSides(base, cur, opts)
	seen := r.skipInvalidBaselines(baseSamples, baseInvalid)
	r.judgeBaselines(baseSamples, curSamples, curInvalid, baselineOf, seen, opts)
	r.addNewSeries(curSamples, seen)
	r.Rows = markWrongOutputs(r.Rows, wrong)
	r.Invalid = r.invalidCauses(curInvalid, cur, baseInvalid, opts.InvalidBaseline)
	r.addLevelNotes()
	sort.SliceStable(r.Rows, func(i, j int) bool { return keyLess(r.Rows[i].SampleKey, r.Rows[j].SampleKey) })
	r.Environment = environmentChanges(baseSamples, curSamples, baseFacts, curFacts)
	r.nonNil()
	return r
}

// regressDefaults gives opts' threshold and alpha their defaults where they are 0 ("not set"). A value no
// threshold or significance level can have is said, in the notes it returns, and replaced by the default:
// never in silence.
func regressDefaults(opts RegressOptions) (RegressOptions, []string) {
	var refused []string
	if !(opts.Threshold >= 0 && opts.Threshold < 1) {
		refused = append(refused, fmt.Sprintf("threshold %v is not a fraction from 0 to 1: the default %v was used", opts.Threshold, DefaultThreshold))
		opts.Threshold = 0
	}
	if !(opts.Alpha >= 0 && opts.Alpha <= 0.5) {
		refused = append(refused, fmt.Sprintf("alpha %v is not a significance level from 0 to 0.5: the default %v was used", opts.Alpha, DefaultAlpha))
		opts.Alpha = 0
	}
	if opts.Threshold == 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.Alpha == 0 {
		opts.Alpha = DefaultAlpha
	}
	return opts, refused
}

// newRegression is the empty result for opts, its notes starting with notes; a unit it does not know is said
// too, and the default used.
func newRegression(opts RegressOptions, notes []string) *Regression {
	unit, err := canonicalUnit(opts.Unit)
	r := &Regression{Threshold: opts.Threshold, Alpha: opts.Alpha, Unit: unit, Notes: notes}
	if err != nil {
		r.Unit = DefaultUnit
		r.Notes = append(r.Notes, err.Error()+"; using "+DefaultUnit)
	}
	return r
}

// leaveOutNoBaseline drops the run's points of the boards without a baseline (opts.NoBaseline) and lists those
// boards, by name, in NoBaseline; one whose newer runs were passed over as invalid is not judged for its state.
func (r *Regression) leaveOutNoBaseline(cur []store.Measurement, opts RegressOptions) []store.Measurement {
	if len(opts.NoBaseline) == 0 {
		return cur
	}
	cur = slices.DeleteFunc(slices.Clone(cur), func(m store.Measurement) bool {
		_, skip := opts.NoBaseline[m.Board]
		return skip
	})
	for board, why := range opts.NoBaseline {
		r.NoBaseline = append(r.NoBaseline, NoBaseline{Board: board, Reason: why, Invalid: len(opts.SkippedBaselines[board]) > 0})
	}
	sort.Slice(r.NoBaseline, func(i, j int) bool { return r.NoBaseline[i].Board < r.NoBaseline[j].Board })
	return cur
}

// noteSkippedBaselines says, board by board, which newer runs the baseline passed over as invalid.
func (r *Regression) noteSkippedBaselines(skipped map[string][]string) {
	for _, board := range slices.Sorted(maps.Keys(skipped)) {
		for _, s := range skipped[board] {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: baseline skips %s", board, s))
		}
	}
}

// groupSides groups the baseline's and the run's judgeable points into samples. What the grouping warns of
// becomes a note, but the baseline's pooling of runs against a window (opts.Baselines): a window pools its
// runs by design, and its baseline note says which.
func (r *Regression) groupSides(base, cur []store.Measurement, opts RegressOptions) (baseSamples, curSamples []*Sample) {
	baseSamples, w1 := Group(base)
	curSamples, w2 := Group(cur)
	if opts.Baselines == nil {
		for _, w := range w1 {
			r.Notes = append(r.Notes, "baseline: "+w)
		}
	}
	for _, w := range w2 {
		r.Notes = append(r.Notes, "current: "+w)
	}
	return baseSamples, curSamples
}

// skipInvalidBaselines counts and notes the series whose baseline points were all invalid: they are not
// judged, and not new either. It returns them as the series seen so far.
func (r *Regression) skipInvalidBaselines(baseSamples []*Sample, baseInvalid []store.Measurement) map[SampleKey]bool {
	baseValid := map[SampleKey]bool{}
	for _, b := range baseSamples {
		baseValid[b.Key] = true
	}
	seen := map[SampleKey]bool{}
	invalidBase, _ := Group(baseInvalid)
	for _, b := range invalidBase {
		if !baseValid[b.Key] {
			seen[b.Key] = true
			r.BaselineInvalid++
			r.BaselineInvalidSeries = append(r.BaselineInvalidSeries, b.Key)
			r.Notes = append(r.Notes, fmt.Sprintf("%s: all %d baseline points invalid; not judged", b.Key.Label(), b.Invalid))
		}
	}
	return seen
}

// judgeBaselines gives a row to every series of the baseline with a usable point, judged against the run's
// sample of it (judge), with what its baseline was; one whose baseline points all failed is a note instead.
// Each is marked seen.
func (r *Regression) judgeBaselines(baseSamples, curSamples []*Sample, curInvalid []store.Measurement,
	baselineOf map[SampleKey]*BaselineInfo, seen map[SampleKey]bool, opts RegressOptions) {
	curByKey := map[SampleKey]*Sample{}
	for _, s := range curSamples {
		curByKey[s.Key] = s
	}
	invalidSamples, _ := Group(curInvalid)
	invalidByKey := map[SampleKey]*Sample{}
	for _, s := range invalidSamples {
		invalidByKey[s.Key] = s
	}
	for _, b := range baseSamples {
		seen[b.Key] = true
		if len(b.Values) == 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: all %d baseline points failed; not judged", b.Key.Label(), b.Failed))
			continue
		}
		row := judge(b, curByKey[b.Key], invalidByKey[b.Key], opts)
		row.Baseline = baselineOf[b.Key]
		r.Rows = append(r.Rows, row)
	}
}

// addNewSeries gives a row, VerdictNew, to every series of the run not seen in the baseline.
func (r *Regression) addNewSeries(curSamples []*Sample, seen map[SampleKey]bool) {
	for _, c := range curSamples {
		if seen[c.Key] {
			continue
		}
		row := RegressRow{SampleKey: c.Key, Verdict: VerdictNew, P: 1, Delta: "new"}
		if len(c.Values) > 0 {
			s := c.Summary()
			row.Cur = &s
		} else {
			row.Notes = append(row.Notes, fmt.Sprintf("all %d points failed", c.Failed))
		}
		r.Rows = append(r.Rows, row)
	}
}

// nonNil replaces nil slices with empty ones so that JSON shows [] rather than null.
func (r *Regression) nonNil() {
	if r.Rows == nil {
		r.Rows = []RegressRow{}
	}
	if r.Environment == nil {
		r.Environment = []EnvChange{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
}

// wrongOutputs are the series of ms with a point whose verification is wrong, with the first one's detail.
func wrongOutputs(ms []store.Measurement) map[SampleKey]string {
	wrong := map[SampleKey]string{}
	for _, m := range ms {
		if k := keyOf(m); m.Verification == protocol.VerificationWrong && wrong[k] == "" {
			wrong[k] = m.VerificationDetail
		}
	}
	return wrong
}

// markWrongOutputs turns every row of a series with a wrong output into VerdictWrongOutput, whatever its speed
// verdict was, and adds a row for such a series that had none (its points were all invalid or failed).
func markWrongOutputs(rows []RegressRow, wrong map[SampleKey]string) []RegressRow {
	for i := range rows {
		if detail, ok := wrong[rows[i].SampleKey]; ok {
			was := rows[i].Verdict
			rows[i].Verdict, rows[i].Delta = VerdictWrongOutput, "wrong"
			rows[i].Notes = append([]string{"wrong output: " + detail + " (speed verdict: " + was + ")"}, rows[i].Notes...)
			delete(wrong, rows[i].SampleKey)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(wrong), keyCompare) {
		rows = append(rows, RegressRow{SampleKey: k, Verdict: VerdictWrongOutput, Delta: "wrong", P: 1,
			Notes: []string{"wrong output: " + wrong[k]}})
	}
	return rows
}

// comparisonString is "p=0.008 n=5+5": the p-value and the sample sizes of the baseline and the run.
func (r RegressRow) comparisonString() string {
	if r.Base == nil || r.Cur == nil {
		return ""
	}
	return fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.Base.N, r.Cur.N)
}

// pString is the p-value alone, "p=0.008", for the table: its baseline and current cells already show n.
func (r RegressRow) pString() string {
	if r.Base == nil || r.Cur == nil {
		return ""
	}
	return fmt.Sprintf("p=%.3f", r.P)
}
