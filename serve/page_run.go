package serve

import (
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// runID reads the {id} of /runs/{id} and /api/runs/{id}: a positive run number in its one spelling. Another
// spelling of a number (01, +1) is a 404: one run has one address, so that links, caches and bookmarks agree.
func runID(r *http.Request) (int64, error) {
	s := r.PathValue("id")
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("run id %q: want a positive whole number", truncate(s, 40))
	}
	if c := strconv.FormatInt(id, 10); c != s {
		return 0, notFound("run id %q: no such page; run %s is at %s", truncate(s, 40), c, strings.TrimSuffix(r.URL.Path, s)+c)
	}
	return id, nil
}

// redirectRunID answers a page request for /runs/01 or /runs/+1 with a redirect to /runs/1, reporting
// whether it did.
func redirectRunID(w http.ResponseWriter, r *http.Request) bool {
	s := r.PathValue("id")
	id, err := strconv.ParseInt(s, 10, 64)
	if c := strconv.FormatInt(id, 10); err != nil || id <= 0 || c == s || !strings.HasSuffix(r.URL.Path, s) {
		return false
	}
	u := *r.URL
	u.Path, u.RawPath = strings.TrimSuffix(r.URL.Path, s)+strconv.FormatInt(id, 10), ""
	http.Redirect(w, r, u.RequestURI(), http.StatusMovedPermanently)
	return true
}

// progressRow is one board of a run in progress.
type progressRow struct {
	Board    string
	State    state
	Points   int
	Expected int   // 0: unknown
	FromRun  int64 // where the estimate comes from
	Percent  int
}

// rawView is one raw tool output, cut to maxRawBytes per stream.
type rawView struct {
	store.RawOutput
	CommandLine    string
	Stdout, Stderr string
	Cut            bool
}

type runView struct {
	Run           store.Run
	State         state  // the status and validity in one word and colour (status.go)
	Gone          string // why a run still marked running is known to have stopped; "" otherwise
	Validity      string // "24 of 24 points invalid: background CPU", "" when no point was suspect or invalid
	ValidityState state
	Duration      string
	Running       bool // its controller is still at it: the page reloads itself
	Progress      []progressRow
	Boards        []template.HTML
	Comparison    template.HTML // charts and tables per algorithm, as fleet report draws them
	Energy        template.HTML // µJ/B against block size where the points carry energy (templates/energy.html)
	NoPoints      bool
	Raws          []rawView
	RawsLeft      int
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	if redirectRunID(w, r) {
		return
	}
	id, err := runID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.readRun(r, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	refresh := 0
	if v.Running {
		refresh = refreshSeconds
	}
	s.render(w, r, http.StatusOK, "run", page{Title: "run " + strconv.FormatInt(id, 10), Nav: "runs", Refresh: refresh, Data: v})
}

func (s *Server) readRun(r *http.Request, id int64) (*runView, error) {
	ctx := r.Context()
	run, err := s.DB.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	brs, err := s.DB.BoardRuns(ctx, id)
	if err != nil {
		return nil, err
	}
	gone, err := s.DB.GoneRuns(ctx, []store.Run{run})
	if err != nil {
		return nil, err
	}
	row := s.runRows([]store.Run{run}, gone)[0]
	v := &runView{Run: run, State: row.State, Gone: row.Gone, ValidityState: row.ValidityState, Duration: row.Duration,
		Running: row.State == stateRunning}
	v.Validity, _, _ = report.RunValidity(run)
	if v.Running {
		exp, err := s.DB.ExpectedPoints(ctx, run)
		if err != nil {
			return nil, err
		}
		for _, br := range brs {
			row := progressRow{Board: br.Board, State: boardState(br, false), Points: br.Points}
			if e, ok := exp[br.Board]; ok && e.Points > 0 {
				row.Expected, row.FromRun = e.Points, e.FromRun
				row.Percent = min(100, 100*br.Points/e.Points)
			}
			v.Progress = append(v.Progress, row)
		}
	}
	for _, br := range brs {
		if v.Gone != "" && br.Status == protocol.StatusRunning {
			// what the store will write when another run takes the board over, said now
			br.Status, br.Error = protocol.StatusInterrupted, "interrupted: "+v.Gone
		}
		v.Boards = append(v.Boards, report.BoardHTML(br))
	}
	ms, err := s.DB.Measurements(ctx, store.Filter{RunID: id})
	if err != nil {
		return nil, err
	}
	if cv, err := s.compareView(r, ms, report.CompareOptions{}, "html"); errors.Is(err, report.ErrNoMeasurements) {
		v.NoPoints = true
	} else if err != nil {
		return nil, err
	} else {
		v.Comparison = report.CompareViewHTML(cv, links)
		v.Energy = report.EnergyChartsHTML(ms)
	}
	raws, err := s.DB.RawOutputs(ctx, id, "")
	if err != nil {
		return nil, err
	}
	if len(raws) > maxRawShown {
		v.RawsLeft = len(raws) - maxRawShown
		raws = raws[:maxRawShown]
	}
	for _, raw := range raws {
		rv := rawView{RawOutput: raw, CommandLine: strings.Join(raw.Command, " ")}
		rv.Stdout, rv.Cut = cut(raw.Stdout)
		var cutErr bool
		rv.Stderr, cutErr = cut(raw.Stderr)
		rv.Cut = rv.Cut || cutErr
		v.Raws = append(v.Raws, rv)
	}
	return v, nil
}

func cut(s string) (string, bool) {
	if len(s) <= maxRawBytes {
		return s, false
	}
	return strings.ToValidUTF8(s[:maxRawBytes], ""), true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
