package serve

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/fleet.css
var ownCSS string

// css is the one stylesheet: report's tables and charts, then the dashboard's layout.
var css = report.StyleSheet() + ownCSS

func serveCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=300")
	http.ServeContent(w, r, "fleet.css", time.Time{}, strings.NewReader(css))
}

// pageTemplate is the layout with one page's content.
type pageTemplate struct{ t *template.Template }

var pageNames = []string{"runs", "run", "compare", "history", "regress", "changes", "error"}

var funcs = template.FuncMap{
	"utc":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
	"join":     strings.Join,
	"runPath":  func(id int64) string { return "/runs/" + strconv.FormatInt(id, 10) },
	"query":    func(v url.Values) string { return v.Encode() },
	"contains": func(list []string, s string) bool { return contains(list, s) },
	"list":     func(s ...string) []string { return s },
	"pct":      func(f float64) float64 { return 100 * f },
}

func parsePages() (map[string]*pageTemplate, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/energy.html")
	if err != nil {
		return nil, fmt.Errorf("serve: parse layout: %w", err)
	}
	pages := map[string]*pageTemplate{}
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("serve: parse page %s: %w", name, err)
		}
		pages[name] = &pageTemplate{t}
	}
	return pages, nil
}

// page is what the layout shows around every page's content.
type page struct {
	Title   string
	Nav     string // the highlighted menu entry
	Refresh int    // seconds; 0: no reload
	Data    any
}

// render executes a page into a buffer first, so that a template error becomes a 500, not half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	var b bytes.Buffer
	if err := s.pages[name].t.ExecuteTemplate(&b, "layout.html", p); err != nil {
		s.logf("serve: render %s for %s: %v", name, r.URL.Path, err)
		http.Error(w, "500 internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// requestError is a problem with what the client asked, with its status: 400 or 404.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &requestError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// statusOf maps an error to its HTTP status and the message the client sees: a store error is logged and
// answered with a generic 500, since its text names server files; ErrNotFound from the store is a 404, and a
// request that names a reference to judge or a label of both kinds a 400 with the sentinel's own text.
func (s *Server) statusOf(r *http.Request, err error) (int, string) {
	var re *requestError
	switch {
	case errors.As(err, &re):
		return re.status, re.msg
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "not found"
	case errors.Is(err, report.ErrNoMeasurements):
		return http.StatusNotFound, "no measurements match"
	case errors.Is(err, store.ErrReferenceRun):
		// the request asked to judge a vendor's table: the client's mistake, and the sentinel names no file
		return http.StatusBadRequest, store.ErrReferenceRun.Error()
	case errors.Is(err, store.ErrLabelMixed):
		// a database filled by db copy from two databases: the label selects no run with certainty
		return http.StatusBadRequest, store.ErrLabelMixed.Error() + ": name the run by its id (the runs page lists them)"
	}
	s.logf("serve: %s: %v", r.URL.Path, err)
	if r.Context().Err() != nil {
		return http.StatusServiceUnavailable, "the query took too long"
	}
	return http.StatusInternalServerError, "internal error (see the server's log)"
}

// fail answers an HTML page request that went wrong.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := s.statusOf(r, err)
	s.render(w, r, status, "error", page{Title: http.StatusText(status), Data: struct {
		Status int
		Text   string
		Msg    string
	}{status, http.StatusText(status), msg}})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, notFound("no page %s", r.URL.Path))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
