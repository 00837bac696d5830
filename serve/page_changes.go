package serve

import (
	"net/http"
	"slices"
	"sort"

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

// changesPage lists recent change points and regressions across the lab as a triage list (sortAlerts), with
// notes on every run and series it did not judge.
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
		JudgedRuns, Runs     int
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
		regs, err := s.labRegressions(r, q, boards)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		data.Alerts, data.Notes = append(changes, regs.alerts...), append(regs.notes, notes...)
		data.JudgedRuns, data.Runs = regs.judged, regs.runs
	}
	sortAlerts(data.Alerts)
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
