package serve

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// Kinds of the changes page's entries, in the order a triage list shows them (alertRank).
const (
	kindRegression = "regression"
	kindChange     = "change"
	kindMissing    = "missing"    // the series of its baseline a narrower run did not measure, one entry per run
	kindNotJudged  = "not judged" // a step seen only with the invalid points counted: never a verdict
)

// alert is one entry of the lab's list: a change point of a series (what `fleet changes` finds), a series of a
// recent run that regressed against its baseline (what `fleet regress` finds), the series a run did not
// measure, or a step among invalid points, as conbench and bencher list their alerts: each with its before and
// after and a link to the series' history.
type alert struct {
	When        time.Time
	Kind        string
	Series      string // board mode algorithm size; for kindMissing, "run 12 measured 2 of 12 series"
	Run         int64  // the first run after the change; the judged run
	Since       int64  // the last run before the change; the baseline run (0: several)
	Baseline    string // for regressions: what the run was judged against
	Levels      string // before → after
	Delta       string
	Size        float64 // |relative step|: the order within a kind
	Verdict     string
	Facts       string // board facts that changed between Since and Run; for kindMissing, the missing series
	Drop        bool
	HistoryHref string
}

// Class is the entry's row class: its kind without spaces, and "drop" for what got worse.
func (a alert) Class() string {
	c := strings.ReplaceAll(a.Kind, " ", "")
	if a.Drop {
		c += " drop"
	}
	return c
}

// alertRank orders a triage list: what got worse (regressions, drops), then what rose, then the series narrower
// runs did not measure, then the steps not judged.
func alertRank(a alert) int {
	switch {
	case a.Kind == kindRegression || a.Kind == kindChange && a.Drop:
		return 0
	case a.Kind == kindChange:
		return 1
	case a.Kind == kindMissing:
		return 2
	}
	return 3
}

// sortAlerts orders by rank, the largest step first, then newest first, then as they were found.
func sortAlerts(as []alert) {
	sort.SliceStable(as, func(i, j int) bool {
		a, b := as[i], as[j]
		if ra, rb := alertRank(a), alertRank(b); ra != rb {
			return ra < rb
		}
		if a.Size != b.Size {
			return a.Size > b.Size
		}
		if !a.When.Equal(b.When) {
			return a.When.After(b.When)
		}
		return a.Run > b.Run // then as found: by series
	})
}

// labChanges are the change points of every selected series, as `fleet changes --boards … --label …` finds them,
// the steps not judged, and the notes on what the search left out.
func (s *Server) labChanges(r *http.Request, q changesQuery, boards []string) ([]alert, []string, error) {
	h, err := s.DB.SeriesHistories(r.Context(), store.HistoryFilter{Boards: boards, Label: q.Label, MaxRuns: changesMaxRuns})
	if err != nil {
		return nil, nil, err
	}
	rep := report.Changes(h, report.ChangeOptions{MaxRuns: changesMaxRuns})
	var out []alert
	for _, c := range rep.Marks() {
		a := alert{When: c.Date, Kind: kindChange, Series: seriesName(c.Key()), Run: c.Run, Since: c.PreviousRun,
			Levels: report.ChangeLevels(c, report.DefaultUnit), Delta: report.FormatChange(c.Delta), Size: math.Abs(c.Delta),
			Facts: strings.Join(c.FactsChanged, "; "), Drop: c.Delta < 0, HistoryHref: historyHref(c.Key())}
		if c.NotJudged != "" {
			a.Kind, a.Verdict, a.Drop = kindNotJudged, c.NotJudged, false
		}
		out = append(out, a)
	}
	var notes []string
	for _, l := range rep.LeftOut {
		notes = append(notes, "changes: "+l.Note)
	}
	for _, w := range rep.Warnings {
		notes = append(notes, "changes: "+w)
	}
	return out, notes, nil
}

// labRegressionsResult is what labRegressions judged: the entries, how many of the runs it looked at were
// judged, and a note for each kind of run it did not judge.
type labRegressionsResult struct {
	alerts       []alert
	judged, runs int
	notes        []string
}

// labRegressions judges the newest finished runs (with the label, when one is asked) against their baselines as
// `fleet regress` does: a labelled run against the label's earlier runs, any other against each board's
// previous run. Only the series that count as a regression are listed; the series a run did not measure are
// folded into one entry per run. A reference (a vendor's table) is never judged; every run not judged is
// counted in a note with the reason.
func (s *Server) labRegressions(r *http.Request, q changesQuery, boards []string) (labRegressionsResult, error) {
	ctx := r.Context()
	var res labRegressionsResult
	runs, err := s.DB.Runs(ctx, store.RunFilter{Label: q.Label, Limit: alertRuns})
	if err != nil {
		return res, err
	}
	res.runs = len(runs)
	var references, running, noBaseline, baseInvalid []int64
	for _, run := range runs {
		switch run.Status {
		case protocol.StatusReference:
			references = append(references, run.ID)
			continue
		case protocol.StatusRunning:
			running = append(running, run.ID)
			continue
		}
		cur, err := s.DB.Measurements(ctx, store.Filter{RunID: run.ID})
		if err != nil {
			return res, err
		}
		if boards != nil {
			cur = slices.DeleteFunc(cur, func(m store.Measurement) bool { return !slices.Contains(boards, m.Board) })
		}
		if len(cur) == 0 {
			res.runs--
			continue // nothing of the selected boards: not one of the runs this filter looks at
		}
		ref := run.Label
		if ref == "" {
			ref = "previous"
		}
		in, err := s.DB.ReadRegressionInput(ctx, ref, cur)
		switch {
		case errors.Is(err, store.ErrReferenceRun):
			references = append(references, run.ID)
			continue
		case errors.Is(err, store.ErrBaselineInvalid):
			baseInvalid = append(baseInvalid, run.ID)
			continue
		case errors.Is(err, store.ErrNotFound):
			noBaseline = append(noBaseline, run.ID) // a board's first run: nothing to judge it against
			continue
		case err != nil:
			return res, err
		}
		reg, _ := report.RegressInput(in, cur, report.RegressOptions{})
		res.addRun(run, ref, in, reg)
	}
	res.note(references, "a vendor's published table (reference), never a measurement to judge: fleet compare --reference puts boards beside it")
	res.note(running, "still going: judged once it ends")
	res.note(noBaseline, "no baseline: no earlier run of the board to judge against")
	res.note(baseInvalid, "every baseline run was invalid (a busy, throttled or hot board): fleet regress says which")
	if len(runs) == alertRuns {
		res.notes = append(res.notes, fmt.Sprintf("regressions: the newest %d runs were looked at", alertRuns))
	}
	return res, nil
}

// note adds "regressions: runs 3, 7 and 10 not judged: why".
func (res *labRegressionsResult) note(ids []int64, why string) {
	if len(ids) == 0 {
		return
	}
	ids = slices.Sorted(slices.Values(ids)) // the runs come newest first; a list of them reads oldest first
	var s []string
	for _, id := range ids {
		s = append(s, fmt.Sprint(id))
	}
	list := "run " + s[0]
	if n := len(s); n > 1 {
		list = "runs " + strings.Join(s[:n-1], ", ") + " and " + s[n-1]
	}
	res.notes = append(res.notes, fmt.Sprintf("regressions: %s not judged: %s", list, why))
}

// addRun lists the regressions of one judged run, folds its missing series into one entry, and notes the
// series it could not judge.
func (res *labRegressionsResult) addRun(run store.Run, ref string, in store.RegressionInput, reg *report.Regression) {
	var missing []string
	baselineSeries, judged := 0, 0
	for _, row := range reg.Rows {
		if row.Verdict != report.VerdictNew {
			baselineSeries++
		}
		if row.Verdict == report.VerdictMissing {
			missing = append(missing, seriesName(row.SampleKey))
			continue
		}
		if row.Verdict != report.VerdictInvalid && row.Verdict != report.VerdictNoBaseline {
			judged++
		}
		if row.Regressed() {
			res.alerts = append(res.alerts, regressionAlert(run, ref, in, reg, row))
		}
	}
	if judged > 0 {
		res.judged++
	}
	for _, why := range reg.InvalidReasons() {
		res.notes = append(res.notes, fmt.Sprintf("regressions: run %d: %s", run.ID, why))
	}
	for _, nb := range reg.NoBaseline {
		if !nb.Invalid {
			res.notes = append(res.notes, fmt.Sprintf("regressions: run %d: %s not judged: %s", run.ID, nb.Board, nb.Reason))
		}
	}
	if len(missing) > 0 {
		facts := strings.Join(missing[:min(len(missing), 3)], ", ")
		if len(missing) > 3 {
			facts += fmt.Sprintf(" and %d more", len(missing)-3)
		}
		res.alerts = append(res.alerts, alert{When: run.Started, Kind: kindMissing, Run: run.ID,
			Series:   fmt.Sprintf("run %d measured %d of %d series", run.ID, baselineSeries-len(missing), baselineSeries),
			Baseline: ref, Verdict: fmt.Sprintf("%d missing", len(missing)), Size: float64(len(missing)),
			Facts: "not measured: " + facts})
	}
}

// regressionAlert is one regressed series of a run.
func regressionAlert(run store.Run, ref string, in store.RegressionInput, reg *report.Regression, row report.RegressRow) alert {
	a := alert{When: run.Started, Kind: kindRegression, Series: seriesName(row.SampleKey), Run: run.ID,
		Since: in.Runs[row.Board], Baseline: fmt.Sprintf("%s: run %d", ref, in.Runs[row.Board]),
		Verdict: row.Verdict, Delta: row.Delta, Size: math.Abs(row.Change), Drop: true, HistoryHref: historyHref(row.SampleKey)}
	if b := row.Baseline; b != nil && len(b.Runs) > 0 {
		// what the row was judged against, as regress prints it: a window of the label's runs is not "run N"
		a.Since, a.Baseline = b.Runs[len(b.Runs)-1], b.String()
	}
	if row.Base != nil && row.Cur != nil {
		a.Levels = report.ChangeLevels(report.Change{Board: row.Board, BlockSize: row.BlockSize,
			Before: row.Base.Median, After: row.Cur.Median}, report.DefaultUnit)
	}
	for _, e := range reg.Environment {
		if e.Board == row.Board {
			a.Facts = strings.Join(e.Changes, "; ")
		}
	}
	return a
}
