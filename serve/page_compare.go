package serve

import (
	"errors"
	"html/template"
	"net/http"
	"sort"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// compareQuery is a comparison's selection, from the URL: the same choices as `fleet compare`.
type compareQuery struct {
	Run                       string
	Boards, Modes, Algorithms []string
	Unit                      string
	Reference, ReferenceBoard string // fleet compare --reference, --reference-board
}

func readCompareQuery(r *http.Request) (compareQuery, error) {
	p := queryParams(r)
	q := compareQuery{Run: p.str("run"), Boards: p.list("boards"), Modes: p.list("modes"),
		Algorithms: p.list("algorithms"), Unit: p.str("unit"), Reference: p.str("reference"),
		ReferenceBoard: p.str("reference-board")}
	if q.Run == "" {
		q.Run = "latest"
	}
	if q.Unit == "" {
		q.Unit = report.DefaultUnit
	}
	if !contains(report.Units, q.Unit) {
		p.fail("unit: %q is not one of %v", q.Unit, report.Units)
	}
	return q, p.err
}

// comparison reads the run's points and builds the view fleet compare prints (the sweep's tables, mode ssh's
// table); ms is every point of the run, before the selection; v is nil when nothing matches.
func (s *Server) comparison(r *http.Request, q compareQuery, format string) (ms []store.Measurement, v *report.CompareView, err error) {
	ms, err = s.DB.SelectRun(r.Context(), q.Run)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, notFound("run %q: no such run or label", q.Run)
	} else if err != nil {
		return nil, nil, err
	}
	v, err = s.compareView(r, ms, report.CompareOptions{Boards: q.Boards, Modes: q.Modes, Algorithms: q.Algorithms, Unit: q.Unit}, format)
	if err != nil && !errors.Is(err, report.ErrNoMeasurements) {
		return nil, nil, badRequest("%v", err)
	}
	return ms, v, nil
}

// compareView is report.NewCompareView over ms with the raw cipher points mode ssh's table needs.
func (s *Server) compareView(r *http.Request, ms []store.Measurement, opts report.CompareOptions, format string) (*report.CompareView, error) {
	raw, err := s.DB.RawCipherPoints(r.Context(), ms)
	if err != nil {
		return nil, err
	}
	return report.NewCompareView(ms, raw, opts, format)
}

// choices are the values the form offers: what the run has.
type choices struct{ Boards, Modes, Algorithms []string }

func choicesOf(ms []store.Measurement) choices {
	var ch choices
	seen := map[string]bool{}
	for _, m := range ms {
		for _, x := range []struct {
			kind, v string
			list    *[]string
		}{{"b", m.Board, &ch.Boards}, {"m", m.Mode, &ch.Modes}, {"a", m.Algorithm, &ch.Algorithms}} {
			if !seen[x.kind+x.v] {
				seen[x.kind+x.v] = true
				*x.list = append(*x.list, x.v)
			}
		}
	}
	sort.Strings(ch.Boards)
	sort.Strings(ch.Modes)
	sort.Strings(ch.Algorithms)
	return ch
}

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	q, err := readCompareQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ms, v, err := s.comparison(r, q, "html")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := struct {
		Q          compareQuery
		Choices    choices
		Units      []string
		References []string
		Comparison template.HTML
		Empty      bool
	}{Q: q, Choices: choicesOf(ms), Units: report.Units, Empty: v == nil}
	if data.References, err = s.DB.ReferenceLabels(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	switch {
	case q.Reference != "":
		rc, err := s.referenceComparison(r, q, ms)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if data.Empty = rc == nil; rc != nil {
			data.Comparison = report.ReferenceChartHTML(rc) + report.ReferenceHTML(rc)
		}
	case v != nil:
		data.Comparison = report.CompareViewHTML(v, links)
	}
	s.render(w, r, http.StatusOK, "compare", page{Title: "compare", Nav: "compare", Data: data})
}

// referenceComparison puts the run's points beside the reference the query names, as fleet compare
// --reference does; nil when nothing of the selection matches a figure of it.
func (s *Server) referenceComparison(r *http.Request, q compareQuery, ms []store.Measurement) (*report.ReferenceComparison, error) {
	run, refPoints, err := s.DB.Reference(r.Context(), q.Reference)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("%v", err)
	} else if err != nil {
		return nil, err
	}
	rc, err := report.CompareReference(ms, run, refPoints, report.ReferenceOptions{Board: q.ReferenceBoard,
		Boards: q.Boards, Modes: q.Modes, Algorithms: q.Algorithms, Unit: q.Unit})
	switch {
	case errors.Is(err, report.ErrNoReferenceMatch):
		return nil, nil
	case err != nil:
		return nil, badRequest("%v", err)
	}
	return rc, nil
}
