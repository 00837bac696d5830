package serve

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// historyBands is the baseline band of a history page: what `fleet regress --baseline LABEL` would judge the
// series' newest run against (its own label, or the previous valid run when it has none), found the way regress
// finds it (store.DB.ReadRegressionInput, then report.RegressInput, so the window's level cut and left-out runs
// are regress's own), with q's threshold. Only the newest page has the newest run; other pages have no band.
// The text says what the band is, or why there is none.
func (s *Server) historyBands(r *http.Request, q historyQuery, ms []store.Measurement) ([]report.HistoryBand, string, error) {
	if q.Page > 1 || len(ms) == 0 {
		return nil, "", nil
	}
	newest := ms[0]
	for _, m := range ms {
		if m.RunStarted.After(newest.RunStarted) || m.RunStarted.Equal(newest.RunStarted) && m.RunID > newest.RunID {
			newest = m
		}
	}
	var cur []store.Measurement
	for _, m := range ms {
		if m.RunID == newest.RunID {
			cur = append(cur, m)
		}
	}
	ref := newest.RunLabel
	if ref == "" {
		ref = "previous"
	}
	in, err := s.DB.ReadRegressionInput(r.Context(), ref, cur)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrReferenceRun), errors.Is(err, store.ErrLabelMixed):
		return nil, fmt.Sprintf("no baseline band: run %d has no baseline %q to be judged against", newest.RunID, ref), nil
	case err != nil:
		return nil, "", err
	}
	reg, _ := report.RegressInput(in, cur, report.RegressOptions{Threshold: q.Threshold})
	var bands []report.HistoryBand
	verdict := ""
	for _, row := range reg.Rows {
		// the baseline run's other series come back as "missing" rows: only this series' are drawn
		if row.Cur == nil || row.Base == nil || row.Baseline == nil || len(row.Baseline.Runs) == 0 {
			continue
		}
		verdict = row.Verdict
		bands = append(bands, report.HistoryBand{Key: row.SampleKey, Runs: row.Baseline.Runs, Median: row.Base.Median,
			Threshold: q.Threshold, Judged: newest.RunID, Label: "baseline: " + row.Baseline.String()})
	}
	if len(bands) == 0 {
		return nil, fmt.Sprintf("no baseline band: no valid baseline point of this series for run %d (baseline %q)", newest.RunID, ref), nil
	}
	return bands, fmt.Sprintf("The band is what fleet regress --baseline %s --threshold %s would judge run %d against "+
		"(the baseline's median ±threshold over the runs it pools; verdict: %s).", ref, fmtPct(q.Threshold), newest.RunID, verdict), nil
}

func fmtPct(f float64) string { return fmt.Sprintf("%g%%", 100*f) }
