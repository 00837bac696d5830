package serve

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fleetlab/fleet/protocol"
)

// maxParam bounds one query value: board, mode and algorithm names are short.
const maxParam = 200

// params reads a request's query string, refusing out-of-range values with a 400 that names the parameter
// and the accepted range (never substituting a default silently).
type params struct {
	v   url.Values
	err error
}

// queryParams reads r's query string. A malformed one (label=%zz) is a 400, not a query without the value:
// r.URL.Query drops what it cannot decode, and the page would answer as if the filter were not given.
func queryParams(r *http.Request) params {
	v, err := url.ParseQuery(r.URL.RawQuery)
	p := params{v: v}
	if err != nil {
		p.fail("query %q: %v; escape %% as %%25", truncate(r.URL.RawQuery, 80), err)
	}
	return p
}

func (p *params) fail(format string, args ...any) {
	if p.err == nil {
		p.err = badRequest(format, args...)
	}
}

// str is a single text value; "" when absent.
func (p *params) str(name string) string {
	vs := p.v[name]
	if len(vs) > 1 {
		p.fail("%s: given %d times, want once", name, len(vs))
		return ""
	}
	if len(vs) == 0 {
		return ""
	}
	s := strings.TrimSpace(vs[0])
	if len(s) > maxParam || !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\r\n") {
		p.fail("%s: want at most %d bytes of UTF-8 text on one line", name, maxParam)
		return ""
	}
	return s
}

// list is a repeated or comma-separated value: boards=a,b or boards=a&boards=b.
func (p *params) list(name string) []string {
	var out []string
	for _, v := range p.v[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			if len(s) > maxParam || !utf8.ValidString(s) {
				p.fail("%s: want names of at most %d bytes", name, maxParam)
				return nil
			}
			if !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	if len(out) > 100 {
		p.fail("%s: at most 100 names", name)
		return nil
	}
	return out
}

// integer is a whole number in [lo, hi]; def when absent. set reports whether it was given.
func (p *params) integer(name string, def, lo, hi int) (n int, set bool) {
	s := p.str(name)
	if s == "" {
		return def, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		p.fail("%s: %q is not a whole number from %d to %d", name, s, lo, hi)
		return def, true
	}
	return n, true
}

// page is the 1-based page number of a paged list.
func (p *params) page() int {
	n, _ := p.integer("page", 1, 1, 1_000_000)
	return n
}

// status is a run status filter; "" when absent.
func (p *params) status() protocol.Status {
	s := protocol.Status(p.str("status"))
	if s != "" && !s.Valid() {
		p.fail("status: %q is not one of running, ok, partial, failed, interrupted, imported, reference", s)
		return ""
	}
	return s
}

// percent is a threshold such as 5% or 5, as a fraction; def when absent. 0 is refused, not read as the default.
func (p *params) percent(name string, def float64) float64 {
	s := p.str(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v > 0 && v < 100) {
		p.fail("%s: %q is not a percentage above 0 and below 100, such as 5%%", name, s)
		return def
	}
	return v / 100
}

// alpha is a significance level in (0, 0.5]; def when absent.
func (p *params) alpha(def float64) float64 {
	s := p.str("alpha")
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0 && v <= 0.5) {
		p.fail("alpha: %q is not a significance level above 0 and at most 0.5", s)
		return def
	}
	return v
}
