package serve

import (
	"errors"
	"html/template"
	"net/http"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// regressQuery is a regression check, from the URL: the same choices as `fleet regress`.
type regressQuery struct {
	Baseline, Run    string
	Threshold, Alpha float64
	ThresholdText    string
}

func readRegressQuery(r *http.Request) (regressQuery, error) {
	p := queryParams(r)
	q := regressQuery{Baseline: p.str("baseline"), Run: p.str("run"), Threshold: p.percent("threshold", report.DefaultThreshold),
		Alpha: p.alpha(0.05), ThresholdText: p.str("threshold")}
	if q.Run == "" {
		q.Run = "latest"
	}
	if q.ThresholdText == "" {
		q.ThresholdText = "5%"
	}
	return q, p.err
}

// regression judges the run against the baseline as `fleet regress` does; nil without a baseline to judge by.
func (s *Server) regression(r *http.Request, q regressQuery) (*report.Regression, error) {
	if q.Baseline == "" {
		return nil, nil
	}
	cur, err := s.DB.SelectRunFor(r.Context(), q.Run, store.Filter{ForRegression: true}) // the columns a verdict reads, not all
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("run %q: no such run or label", q.Run)
	} else if err != nil {
		return nil, err
	}
	if len(cur) == 0 {
		return nil, notFound("run %q has no points", q.Run)
	}
	in, err := s.DB.ReadRegressionInput(r.Context(), q.Baseline, cur)
	if errors.Is(err, store.ErrBaselineIsJudged) {
		return nil, badRequest("baseline %q is the run judged: name an earlier run, a label or previous", q.Baseline)
	} else if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("baseline %q: %v", q.Baseline, err)
	} else if err != nil {
		return nil, err
	}
	reg, _ := report.RegressInput(in, cur, report.RegressOptions{Threshold: q.Threshold, Alpha: q.Alpha})
	return reg, nil
}

func (s *Server) regressPage(w http.ResponseWriter, r *http.Request) {
	q, err := readRegressQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reg, err := s.regression(r, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := struct {
		Q          regressQuery
		Table      template.HTML
		Chart      template.HTML // baseline band and judged point per block size, per series group
		Judged     bool
		Regression bool
	}{Q: q, Judged: reg != nil}
	if reg != nil {
		data.Table, data.Regression = report.RegressionHTML(reg, links), reg.HasRegression()
		data.Chart = report.RegressionChartHTML(reg)
	}
	s.render(w, r, http.StatusOK, "regress", page{Title: "regress", Nav: "regress", Data: data})
}
