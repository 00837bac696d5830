package serve

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// Bounds of the changes page: the recent runs judged against their baselines, and the entries listed.
const (
	alertRuns     = 20  // newest finished runs judged for regressions
	alertsPerPage = 200 // entries shown; the rest are counted
)

// seriesChanges is what `fleet changes` finds on the series k, over the newest changesMaxRuns runs of its board,
// with the steps not judged (seen only with the invalid points counted) that its chart marks apart.
func (s *Server) seriesChanges(r *http.Request, k store.SeriesKey) ([]report.Change, error) {
	h, err := s.DB.SeriesHistories(r.Context(), store.HistoryFilter{Boards: []string{k.Board}, Modes: []string{k.Mode},
		Algorithms: []string{k.Algorithm}, Sizes: []int{k.BlockSize}, MaxRuns: changesMaxRuns})
	if err != nil {
		return nil, err
	}
	return report.SeriesChanges(report.Changes(h, report.ChangeOptions{MaxRuns: changesMaxRuns}).Marks(), k), nil
}

// changesQuery is the changes page's filter: a board, the boards carrying a tag, the runs with a label.
type changesQuery struct{ Board, Tag, Label string }

func readChangesQuery(r *http.Request) (changesQuery, error) {
	p := queryParams(r)
	q := changesQuery{Board: p.str("board"), Tag: p.str("tag"), Label: p.str("label")}
	return q, p.err
}

// alert is one entry of the lab's list: a change point of a series (what `fleet changes` finds) or a series of a
// recent run that regressed against its baseline (what `fleet regress` finds), as conbench and bencher list
// their alerts: newest first, each with its before and after and a link to the series' history.
type alert struct {
	When        time.Time
	Kind        string // "change" or "regression"
	Series      string // board mode algorithm size
	Run         int64  // the first run after the change; the judged run
	Since       int64  // the last run before the change; the baseline run (0: several)
	Baseline    string // for regressions: what the run was judged against
	Levels      string // before → after
	Delta       string
	Verdict     string
	Facts       string // board facts that changed between Since and Run
	Drop        bool
	HistoryHref string
}

// changesPage lists recent change points and regressions across the lab, newest first.
func (s *Server) changesPage(w http.ResponseWriter, r *http.Request) {
	q, err := readChangesQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	keys, err := s.DB.SeriesKeys(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := struct {
		Q                    changesQuery
		Boards, Tags, Labels []string
		Alerts               []alert
		More                 int
		Notes                []string
		JudgedRuns           int
	}{Q: q, Boards: distinct(keys, func(k store.SeriesKey) string { return k.Board })}
	for _, tags := range s.Tags {
		for _, t := range tags {
			if !slices.Contains(data.Tags, t) {
				data.Tags = append(data.Tags, t)
			}
		}
	}
	sort.Strings(data.Tags)
	if data.Labels, err = s.runLabels(r); err != nil {
		s.fail(w, r, err)
		return
	}
	boards, err := s.alertBoards(q, data.Boards)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(boards) > 0 || (q.Board == "" && q.Tag == "") {
		changes, notes, err := s.labChanges(r, q, boards)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		regs, judged, more, err := s.labRegressions(r, q, boards)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		data.Alerts, data.Notes, data.JudgedRuns = append(changes, regs...), append(notes, more...), judged
	}
	sort.SliceStable(data.Alerts, func(i, j int) bool {
		a, b := data.Alerts[i], data.Alerts[j]
		if !a.When.Equal(b.When) {
			return a.When.After(b.When)
		}
		if a.Run != b.Run {
			return a.Run > b.Run
		}
		return a.Kind < b.Kind
	})
	if len(data.Alerts) > alertsPerPage {
		data.More = len(data.Alerts) - alertsPerPage
		data.Alerts = data.Alerts[:alertsPerPage]
	}
	s.render(w, r, http.StatusOK, "changes", page{Title: "changes", Nav: "changes", Data: data})
}

// alertBoards are the boards the filter selects: the board, those carrying the tag (both: the board if it
// carries the tag), nil for all. A board or tag that selects nothing is a 404 naming what there is.
func (s *Server) alertBoards(q changesQuery, stored []string) ([]string, error) {
	if q.Board != "" && !slices.Contains(stored, q.Board) {
		return nil, notFound("no series of board %q is stored (boards with data: %s)", truncate(q.Board, 40), joinShort(stored))
	}
	if q.Tag == "" {
		if q.Board == "" {
			return nil, nil
		}
		return []string{q.Board}, nil
	}
	var out []string
	for _, b := range stored {
		if slices.Contains(s.Tags[b], q.Tag) && (q.Board == "" || q.Board == b) {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, notFound("no stored board carries tag %q in the inventory fleet serve read", truncate(q.Tag, 40))
	}
	return out, nil
}

// runLabels are the labels of the newest runs, for the filter.
func (s *Server) runLabels(r *http.Request) ([]string, error) {
	runs, err := s.DB.Runs(r.Context(), store.RunFilter{Limit: maxRunsPerPage})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, run := range runs {
		if run.Label != "" && !slices.Contains(out, run.Label) {
			out = append(out, run.Label)
		}
	}
	sort.Strings(out)
	return out, nil
}

// labChanges are the change points of every selected series, as `fleet changes --boards … --label …` finds them.
func (s *Server) labChanges(r *http.Request, q changesQuery, boards []string) ([]alert, []string, error) {
	h, err := s.DB.SeriesHistories(r.Context(), store.HistoryFilter{Boards: boards, Label: q.Label, MaxRuns: changesMaxRuns})
	if err != nil {
		return nil, nil, err
	}
	rep := report.Changes(h, report.ChangeOptions{MaxRuns: changesMaxRuns})
	var out []alert
	for _, c := range rep.Changes {
		a := alert{When: c.Date, Kind: "change", Series: seriesName(c.Key()), Run: c.Run, Since: c.PreviousRun,
			Levels: report.ChangeLevels(c, report.DefaultUnit), Delta: report.FormatChange(c.Delta),
			Facts: strings.Join(c.FactsChanged, "; "), Drop: c.Delta < 0, HistoryHref: historyHref(c.Key())}
		out = append(out, a)
	}
	return out, rep.Warnings, nil
}

// labRegressions judges the newest finished runs (with the label, when one is asked) against their baselines as
// `fleet regress` does: a labelled run against the label's earlier runs, any other against each board's
// previous run. Only the series that count as a regression are listed.
func (s *Server) labRegressions(r *http.Request, q changesQuery, boards []string) ([]alert, int, []string, error) {
	ctx := r.Context()
	runs, err := s.DB.Runs(ctx, store.RunFilter{Label: q.Label, Limit: alertRuns})
	if err != nil {
		return nil, 0, nil, err
	}
	var out []alert
	var notes []string
	judged := 0
	for _, run := range runs {
		if run.Status == protocol.StatusRunning {
			continue
		}
		cur, err := s.DB.Measurements(ctx, store.Filter{RunID: run.ID})
		if err != nil {
			return nil, 0, nil, err
		}
		if boards != nil {
			cur = slices.DeleteFunc(cur, func(m store.Measurement) bool { return !slices.Contains(boards, m.Board) })
		}
		if len(cur) == 0 {
			continue
		}
		ref := run.Label
		if ref == "" {
			ref = "previous"
		}
		in, err := s.DB.ReadRegressionInput(ctx, ref, cur)
		if errors.Is(err, store.ErrNotFound) {
			continue // no baseline for any board: nothing to judge, as for a first run
		} else if err != nil {
			return nil, 0, nil, err
		}
		judged++
		reg, _ := report.RegressInput(in, cur, report.RegressOptions{})
		for _, row := range reg.Rows {
			if !row.Regressed() {
				continue
			}
			a := alert{When: run.Started, Kind: "regression", Series: seriesName(row.SampleKey), Run: run.ID,
				Since: in.Runs[row.Board], Baseline: fmt.Sprintf("%s: run %d", ref, in.Runs[row.Board]),
				Verdict: row.Verdict, Delta: row.Delta, Drop: true, HistoryHref: historyHref(row.SampleKey)}
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
			out = append(out, a)
		}
	}
	if len(runs) == alertRuns {
		notes = append(notes, fmt.Sprintf("regressions: the newest %d runs were judged against their baselines", alertRuns))
	}
	return out, judged, notes, nil
}

// seriesName is a series as the lists name it: "am64x devcrypto aes-128-cbc 16384 B".
func seriesName(k report.SampleKey) string {
	return k.Label()
}

// links makes every compare and regress row link to its series' history.
var links = report.Links{SeriesHref: historyHref}

// historyHref is the history page of a series.
func historyHref(k report.SampleKey) string {
	q := historyQuery{Key: store.SeriesKey{Board: k.Board, Mode: k.Mode, Algorithm: k.Algorithm, BlockSize: k.BlockSize}}
	if k.Threads > 1 {
		q.Key.Threads = k.Threads
	}
	switch k.Op {
	case "", "encrypt", "digest": // the only operation of a symmetric series: any
	default:
		q.Key.Op = k.Op
	}
	return "/history?" + q.values(1).Encode()
}
