package serve

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// historyQuery is one series and a page of its runs, from the URL: the choices of `fleet history`.
type historyQuery struct {
	Key       store.SeriesKey
	Page      int
	Runs      bool    // x is the runs in order (axis=runs); default: their start time
	Threshold float64 // of the baseline band (threshold=5%); regress's default when absent
	Set       bool    // there is a series to show
	given     struct{ board, mode, algorithm, size bool }
}

// readHistoryQuery reads the URL's series. The API needs board and algorithm; the page completes what is
// missing from what is stored (resolveSeries).
func readHistoryQuery(r *http.Request) (historyQuery, error) {
	p := queryParams(r)
	q := historyQuery{Page: p.page()}
	q.Key.Board, q.Key.Mode, q.Key.Algorithm = p.str("board"), p.str("mode"), p.str("algorithm")
	q.given.board, q.given.mode, q.given.algorithm = q.Key.Board != "", q.Key.Mode != "", q.Key.Algorithm != ""
	q.Key.BlockSize, q.given.size = p.integer("size", preferredSize, 0, 1<<30)
	q.Key.Threads, _ = p.integer("threads", 0, 0, 4096)
	q.Key.Op = p.str("op")
	switch axis := p.str("axis"); axis {
	case "", "time":
	case "runs":
		q.Runs = true
	default:
		p.fail("axis: %q is not time or runs", truncate(axis, 40))
	}
	q.Threshold = p.percent("threshold", report.DefaultThreshold)
	q.Set = q.given.board && q.given.algorithm
	return q, p.err
}

// values is the query string of the series, for links.
func (q historyQuery) values(page int) url.Values {
	v := url.Values{"board": {q.Key.Board}, "mode": {q.Key.Mode}, "algorithm": {q.Key.Algorithm},
		"size": {strconv.Itoa(q.Key.BlockSize)}}
	if q.Key.Threads != 0 {
		v.Set("threads", strconv.Itoa(q.Key.Threads))
	}
	if q.Key.Op != "" {
		v.Set("op", q.Key.Op)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if q.Runs {
		v.Set("axis", "runs")
	}
	if q.Threshold != 0 && q.Threshold != report.DefaultThreshold { // 0: a link built elsewhere, no band asked
		v.Set("threshold", strconv.FormatFloat(100*q.Threshold, 'f', -1, 64)+"%")
	}
	return v
}

// axisHref is the link to the same page on the other x axis.
func (q historyQuery) axisHref(runs bool) string {
	q.Runs = runs
	return "/history?" + q.values(q.Page).Encode()
}

// historyPageData is one page of a series' history: its points, the runs and board runs behind them.
type historyPageData struct {
	Points []store.Measurement
	Runs   []store.Run
	Boards []store.BoardRun
	More   bool
}

func (s *Server) readHistory(r *http.Request, q historyQuery) (*historyPageData, error) {
	ms, more, err := s.DB.HistoryPage(r.Context(), q.Key, (q.Page-1)*historyPerPage, historyPerPage)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, notFound("no points for %s %s %s %d B (page %d)", q.Key.Board, q.Key.Mode, q.Key.Algorithm,
			q.Key.BlockSize, q.Page)
	}
	runs, boards, err := s.DB.SeriesRuns(r.Context(), ms)
	if err != nil {
		return nil, err
	}
	return &historyPageData{Points: ms, Runs: runs, Boards: boards, More: more}, nil
}

func (s *Server) historyPage(w http.ResponseWriter, r *http.Request) {
	q, err := readHistoryQuery(r)
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
		Q          historyQuery
		Choices    historyChoices
		Body       template.HTML
		Prev, Next string
		Band       string // what the band shows, or why there is none
		TimeHref   string
		RunsHref   string
	}{}
	if data.Q, data.Choices, err = resolveSeries(keys, q); err != nil {
		s.fail(w, r, err)
		return
	}
	q = data.Q
	if q.Set {
		h, err := s.readHistory(r, q)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		changes, err := s.seriesChanges(r, q.Key)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var bands []report.HistoryBand
		bands, data.Band, err = s.historyBands(r, q, h.Points)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		data.TimeHref, data.RunsHref = q.axisHref(false), q.axisHref(true)
		title := fmt.Sprintf("%s %s %s %d B", q.Key.Board, q.Key.Mode, q.Key.Algorithm, q.Key.BlockSize)
		data.Body, err = report.HistoryHTML(title, h.Points, h.Runs, h.Boards, report.HistoryHTMLOptions{
			RunHref: runHref, Changes: changes, Time: !q.Runs, Bands: bands})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if q.Page > 1 {
			data.Prev = "/history?" + q.values(q.Page-1).Encode()
		}
		if h.More {
			data.Next = "/history?" + q.values(q.Page+1).Encode()
		}
	}
	s.render(w, r, http.StatusOK, "history", page{Title: "history", Nav: "history", Data: data})
}

func runHref(id int64) string { return "/runs/" + strconv.FormatInt(id, 10) }
