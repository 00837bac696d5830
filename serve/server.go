package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Server answers the dashboard's pages and API. Its zero value is not usable: DB is required.
type Server struct {
	DB           Store
	Tags         map[string][]string      // board → its inventory tags, for the changes page's tag filter; nil: none
	Auth         *Credentials             // optional; nil: no authentication (loopback)
	Logf         func(string, ...any)     // server-side errors; nil: dropped
	Now          func() time.Time         // clock for "running for"; nil: time.Now
	QueryTimeout time.Duration            // per request; 0: 10 s
	pages        map[string]*pageTemplate // parsed once by Handler
}

// Limits on what one request may ask for: lists are paged, never rendered whole.
const (
	maxQueryBytes   = 4096 // longer query strings get 414
	runsPerPage     = 50
	maxRunsPerPage  = 500
	historyPerPage  = 50   // runs of a series per history page
	changesMaxRuns  = 1000 // runs per board a change search reads, as fleet changes' default --max-runs
	maxHistoryPage  = 500  // store.HistoryPage's own bound
	maxRawShown     = 200  // raw outputs rendered on a run page
	maxRawBytes     = 64 << 10
	refreshSeconds  = 5 // a run in progress reloads itself this often
	defaultTimeouts = 10 * time.Second
)

// Handler returns the server's routes wrapped in the safety layer: security headers on every response,
// GET and HEAD only, a bounded query string, a per-request deadline and, when Auth is set, basic auth.
func (s *Server) Handler() (http.Handler, error) {
	if s.DB == nil {
		return nil, errors.New("serve: no database")
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	s.pages = pages
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", s.runsPage)
	mux.HandleFunc("/runs/{id}", s.runPage)
	mux.HandleFunc("/compare", s.comparePage)
	mux.HandleFunc("/history", s.historyPage)
	mux.HandleFunc("/regress", s.regressPage)
	mux.HandleFunc("/changes", s.changesPage)
	mux.HandleFunc("/api/runs", s.apiRuns)
	mux.HandleFunc("/api/runs/{id}", s.apiRun)
	mux.HandleFunc("/api/results", s.apiResults)
	mux.HandleFunc("/api/history", s.apiHistory)
	mux.HandleFunc("/api/compare", s.apiCompare)
	mux.HandleFunc("/api/regress", s.apiRegress)
	mux.HandleFunc("/api/", s.apiNotFound)
	mux.HandleFunc("/static/fleet.css", serveCSS)
	mux.HandleFunc("/", s.notFound)
	var h http.Handler = mux
	h = s.withDeadline(h)
	if s.Auth != nil {
		h = s.Auth.wrap(h)
	}
	return withSafety(h), nil
}

// contentSecurityPolicy allows the page's own stylesheet and nothing else: no script at all, no inline style,
// no request to another origin, no framing, forms only to this server.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
	"base-uri 'none'; frame-ancestors 'none'"

func withSafety(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "405 method not allowed: fleet serve is read-only (GET and HEAD)", http.StatusMethodNotAllowed)
			return
		}
		if len(r.URL.RawQuery) > maxQueryBytes {
			http.Error(w, fmt.Sprintf("414 query longer than %d bytes", maxQueryBytes), http.StatusRequestURITooLong)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) withDeadline(next http.Handler) http.Handler {
	d := s.QueryTimeout
	if d <= 0 {
		d = defaultTimeouts
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}
