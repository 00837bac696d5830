package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// The API answers the pages' data as JSON, written by the same report functions as the CLI's --format json,
// so the field names are the same. Errors are {"error": "..."} with the status of the page.

// writeAPI renders into a buffer first, so that an error becomes a clean JSON error, not half a document.
func (s *Server) writeAPI(w http.ResponseWriter, r *http.Request, write func(*bytes.Buffer) error) {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		s.apiFail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

func (s *Server) apiFail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := s.statusOf(r, err)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// apiNotFound answers an unknown /api/ path in JSON, as every API answer is.
func (s *Server) apiNotFound(w http.ResponseWriter, r *http.Request) {
	s.apiFail(w, r, notFound("no API endpoint %s", truncate(r.URL.Path, 80)))
}

func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) {
	s.writeAPI(w, r, func(b *bytes.Buffer) error {
		q, err := readRunsQuery(r)
		if err != nil {
			return err
		}
		runs, err := s.DB.Runs(r.Context(), q.Filter)
		if err != nil {
			return err
		}
		total, err := s.DB.CountRuns(r.Context(), q.Filter)
		if err != nil {
			return err
		}
		w.Header().Set("X-Total-Count", strconv.Itoa(total))
		return report.WriteRuns(b, runs, report.FormatJSON)
	})
}

func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) {
	s.writeAPI(w, r, func(b *bytes.Buffer) error {
		id, err := runID(r)
		if err != nil {
			return err
		}
		run, err := s.DB.Run(r.Context(), id)
		if err != nil {
			return err
		}
		brs, err := s.DB.BoardRuns(r.Context(), id)
		if err != nil {
			return err
		}
		return report.WriteRunDetail(b, run, brs, nil, report.FormatJSON)
	})
}

// apiResults is `fleet results --format json`: the points of a run (default: each board's latest run),
// filtered by board, mode, algorithm and size.
func (s *Server) apiResults(w http.ResponseWriter, r *http.Request) {
	s.writeAPI(w, r, func(b *bytes.Buffer) error {
		p := queryParams(r)
		f := store.Filter{Board: p.str("board"), Mode: p.str("mode"), Algorithm: p.str("algorithm")}
		f.Size, f.SizeSet = p.integer("size", 0, 0, 1<<30)
		ref := p.str("run")
		if p.err != nil {
			return p.err
		}
		if ref == "" || ref == "latest" {
			f.Latest = true
		} else {
			id, err := s.DB.ResolveRun(r.Context(), ref)
			if errors.Is(err, store.ErrNotFound) {
				return notFound("run %q: no such run or label", ref)
			} else if err != nil {
				return err
			}
			f.RunID = id
		}
		ms, err := s.DB.Measurements(r.Context(), f)
		if err != nil {
			return err
		}
		return report.WriteResults(b, ms, report.FormatJSON)
	})
}

// apiHistory is `fleet history --format json` for one page of a series' runs (newest first); a Link header
// names the next (older) page when there is one.
func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request) {
	s.writeAPI(w, r, func(b *bytes.Buffer) error {
		q, err := readHistoryQuery(r)
		if err != nil {
			return err
		}
		if !q.Set {
			return badRequest("board and algorithm are required")
		}
		h, err := s.readHistory(r, q)
		if err != nil {
			return err
		}
		if h.More {
			w.Header().Set("Link", `</api/history?`+q.values(q.Page+1).Encode()+`>; rel="next"`)
		}
		return report.WriteHistory(b, h.Points, h.Runs, h.Boards, report.FormatJSON)
	})
}

// apiCompare is `fleet compare --format json`.
func (s *Server) apiCompare(w http.ResponseWriter, r *http.Request) {
	s.writeAPI(w, r, func(b *bytes.Buffer) error {
		q, err := readCompareQuery(r)
		if err != nil {
			return err
		}
		_, v, err := s.comparison(r, q, report.FormatJSON)
		if err != nil {
			return err
		}
		if v == nil {
			return notFound("no measurements match")
		}
		return report.WriteCompareView(b, v, report.FormatJSON, report.Layout{})
	})
}

// apiRegress is `fleet regress --format json`.
func (s *Server) apiRegress(w http.ResponseWriter, r *http.Request) {
	s.writeAPI(w, r, func(b *bytes.Buffer) error {
		q, err := readRegressQuery(r)
		if err != nil {
			return err
		}
		if q.Baseline == "" {
			return badRequest("baseline is required")
		}
		reg, err := s.regression(r, q)
		if err != nil {
			return err
		}
		return report.WriteRegression(b, reg, report.FormatJSON)
	})
}
