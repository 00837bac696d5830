package serve

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// runsQuery is the runs listing's filter and page, from the URL.
type runsQuery struct {
	Filter  store.RunFilter
	Page    int
	PerPage int
}

func readRunsQuery(r *http.Request) (runsQuery, error) {
	p := queryParams(r)
	q := runsQuery{Page: p.page()}
	q.PerPage, _ = p.integer("per", runsPerPage, 1, maxRunsPerPage)
	q.Filter = store.RunFilter{Label: p.str("label"), Board: p.str("board"), Status: p.status(),
		Limit: q.PerPage, Offset: (q.Page - 1) * q.PerPage}
	return q, p.err
}

// runRow is one line of the runs page.
type runRow struct {
	store.Run
	State         state  // the status and validity in one word and colour (status.go)
	Gone          string // why a run still marked running is known to have stopped (store.DB.GoneRuns); "" otherwise
	Duration      string
	Validity      string // the points' verdicts in short: "24/24 invalid: background CPU", "ok", "-"
	ValidityState state  // its colour; "" when no point was judged
}

// runRows lays out runs; gone is store.DB.GoneRuns of them.
func (s *Server) runRows(runs []store.Run, gone map[int64]string) []runRow {
	rows := make([]runRow, 0, len(runs))
	for _, r := range runs {
		row := runRow{Run: r, Gone: gone[r.ID], ValidityState: validityState(r.Points, r.Judged)}
		row.State = runState(r, row.Gone != "")
		_, row.Validity, _ = report.RunValidity(r)
		switch {
		case !r.Finished.IsZero():
			row.Duration = r.Finished.Sub(r.Started).Round(time.Second).String()
		case row.State == stateRunning:
			row.Duration = "running for " + s.now().Sub(r.Started).Round(time.Second).String()
		}
		rows = append(rows, row)
	}
	return rows
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	q, err := readRunsQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	runs, err := s.DB.Runs(r.Context(), q.Filter)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	total, err := s.DB.CountRuns(r.Context(), q.Filter)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	gone, err := s.DB.GoneRuns(r.Context(), runs)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := struct {
		Label, Board, Status string
		Rows                 []runRow
		Total, Page, Pages   int
		Prev, Next           string
		AnyRunning           bool
		Legend               any
	}{Legend: stateLegend(), Label: q.Filter.Label, Board: q.Filter.Board, Status: string(q.Filter.Status), Rows: s.runRows(runs, gone),
		Total: total, Page: q.Page, Pages: max(1, (total+q.PerPage-1)/q.PerPage)}
	link := func(page int) string {
		v := url.Values{}
		for k, x := range map[string]string{"label": data.Label, "board": data.Board, "status": data.Status} {
			if x != "" {
				v.Set(k, x)
			}
		}
		if q.PerPage != runsPerPage {
			v.Set("per", strconv.Itoa(q.PerPage))
		}
		v.Set("page", strconv.Itoa(page))
		return "/?" + v.Encode()
	}
	if q.Page > 1 {
		data.Prev = link(q.Page - 1)
	}
	if q.Page < data.Pages {
		data.Next = link(q.Page + 1)
	}
	for _, row := range data.Rows {
		data.AnyRunning = data.AnyRunning || row.State == stateRunning
	}
	refresh := 0
	if data.AnyRunning && q.Page == 1 {
		refresh = refreshSeconds
	}
	s.render(w, r, http.StatusOK, "runs", page{Title: "runs", Nav: "runs", Refresh: refresh, Data: data})
}
