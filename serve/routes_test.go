package serve

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRoutes answers every route with its status, content type and security headers.
func TestRoutes(t *testing.T) {
	srv := startServer(t, writeFixture(t))
	for _, tc := range []struct {
		method, path string
		status       int
		ctype        string
		body         string // a substring the answer must hold
	}{
		{"GET", "/", 200, "text/html", "nightly"},
		{"HEAD", "/", 200, "text/html", ""},
		{"GET", "/?label=nightly&page=1", 200, "text/html", "3 runs"},
		{"GET", "/?board=imx6q&status=ok", 200, "text/html", "3 runs"},
		{"GET", "/?status=bogus", 400, "text/html", "status"},
		{"GET", "/?label=%zz", 400, "text/html", "invalid URL escape"},
		{"GET", "/compare?boards=am64x&unit=%zz", 400, "text/html", "invalid URL escape"},
		{"GET", "/api/runs?label=%zz", 400, "application/json", "invalid URL escape"},
		{"GET", "/?page=0", 400, "text/html", "page"},
		{"GET", "/?per=100000", 400, "text/html", "per"},
		{"GET", "/runs/1", 200, "text/html", `<svg class="chart"`},
		{"GET", "/runs/4", 200, "text/html", "Progress"},
		{"GET", "/runs/999", 404, "text/html", "not found"},
		{"GET", "/runs/abc", 400, "text/html", "positive whole number"},
		{"GET", "/compare", 200, "text/html", "am64x devcrypto"},
		{"GET", "/compare?run=1&boards=am64x&modes=cpu,devcrypto&algorithms=aes-128-cbc&unit=MiB/s", 200, "text/html", "MiB/s"},
		{"GET", "/compare?run=nosuch", 404, "text/html", "no such run"},
		{"GET", "/compare?unit=furlongs", 400, "text/html", "unit"},
		{"GET", "/compare?boards=nosuchboard", 200, "text/html", "No measurements match"},
		{"GET", "/history", 200, "text/html", "am64x cpu aes-128-cbc 16384 B"},
		{"GET", "/history?board=am64x&mode=devcrypto&algorithm=aes-128-cbc&size=16384", 200, "text/html", `href="/runs/3"`},
		{"GET", "/history?board=am64x&algorithm=aes-128-cbc&size=77", 200, "text/html", "no size 77 has data for the series chosen before it: showing size 16384"},
		{"GET", "/history?board=imx6q", 200, "text/html", "imx6q cpu aes-128-cbc 16384 B"},
		{"GET", "/history?board=imx6q&mode=afalg&algorithm=sha256", 200, "text/html", "no mode afalg has data"},
		{"GET", "/history?board=nosuch&algorithm=sha256", 404, "text/html", "no series of board"},
		{"GET", "/history?board=am64x&algorithm=sha256&size=-1", 400, "text/html", "size"},
		{"GET", "/regress", 200, "text/html", "Name a baseline"},
		{"GET", "/regress?baseline=2&run=3", 200, "text/html", "Regression found"},
		{"GET", "/regress?baseline=1&run=2", 200, "text/html", "No regression"},
		{"GET", "/regress?baseline=nosuchlabel&run=3", 404, "text/html", "baseline"},
		{"GET", "/regress?baseline=3&run=3", 400, "text/html", "is the run judged"},
		{"GET", "/regress?baseline=1&threshold=200%25", 400, "text/html", "threshold"},
		{"GET", "/regress?baseline=1&threshold=0", 400, "text/html", "threshold"},
		{"GET", "/regress?baseline=1&threshold=-1", 400, "text/html", "threshold"},
		{"GET", "/changes", 200, "text/html", "am64x devcrypto aes-128-cbc 16384 B"},
		{"GET", "/changes?label=nightly&board=am64x", 200, "text/html", `href="/history?algorithm=aes-128-cbc&amp;board=am64x&amp;mode=devcrypto&amp;size=16384"`},
		{"GET", "/changes?board=imx6q", 200, "text/html", "Nothing changed or regressed"},
		{"GET", "/changes?board=nosuch", 404, "text/html", "no series of board"},
		{"GET", "/changes?tag=lab", 404, "text/html", "no stored board carries tag"},
		{"GET", "/api/runs", 200, "application/json", `"tool_version": "v0.9.0"`},
		{"GET", "/api/runs?status=ok", 200, "application/json", `"status": "ok"`},
		{"GET", "/api/runs/1", 200, "application/json", `"openssl_version": "3.0.13"`},
		{"GET", "/api/runs/0", 400, "application/json", `"error"`},
		{"GET", "/api/runs/77", 404, "application/json", `"error"`},
		{"GET", "/api/runs/01", 404, "application/json", `run 1 is at /api/runs/1`},
		{"GET", "/api/runs/+1", 404, "application/json", `run 1 is at /api/runs/1`},
		{"GET", "/api/nosuch", 404, "application/json", `{"error":"no API endpoint /api/nosuch"}`},
		{"GET", "/api/", 404, "application/json", `"error"`},
		{"GET", "/api/results?run=1&board=am64x&mode=cpu&algorithm=sha256&size=16", 200, "application/json", `"bytes_per_sec"`},
		{"GET", "/api/results?run=nosuch", 404, "application/json", `"error"`},
		{"GET", "/api/history?board=am64x&mode=cpu&algorithm=sha256&size=1024", 200, "application/json", `"entries"`},
		{"GET", "/api/history", 400, "application/json", `"error"`},
		{"GET", "/api/compare?run=1", 200, "application/json", `"crossovers"`},
		{"GET", "/api/regress?baseline=2&run=3", 200, "application/json", `"verdict": "regressed`},
		{"GET", "/api/regress", 400, "application/json", `"error"`},
		{"GET", "/static/fleet.css", 200, "text/css", "svg .grid"},
		{"GET", "/nosuchpage", 404, "text/html", "no page"},
		{"GET", "/?" + strings.Repeat("a", maxQueryBytes+1), 414, "text/plain", "414"},
		{"POST", "/", 405, "text/plain", "read-only"},
		{"PUT", "/api/runs", 405, "text/plain", "read-only"},
		{"DELETE", "/runs/1", 405, "text/plain", "read-only"},
		{"POST", "/nosuchpage", 405, "text/plain", "read-only"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d; body:\n%.600s", resp.StatusCode, tc.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.ctype) {
				t.Errorf("Content-Type %q, want %s", ct, tc.ctype)
			}
			if !strings.Contains(string(body), tc.body) {
				t.Errorf("body lacks %q:\n%.600s", tc.body, body)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q, want nosniff", got)
			}
			if resp.StatusCode == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("405 without Allow: GET, HEAD")
			}
		})
	}
}

// TestRunInProgressRefreshes: a running run's page (and the runs list showing it) reloads itself; a finished
// run's page does not.
func TestRunInProgressRefreshes(t *testing.T) {
	srv := startServer(t, writeFixture(t))
	for _, tc := range []struct {
		path    string
		refresh bool
	}{{"/runs/4", true}, {"/", true}, {"/runs/3", false}, {"/?status=ok", false}} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.Contains(string(body), `<meta http-equiv="refresh" content="5">`); got != tc.refresh {
			t.Errorf("GET %s: refreshes = %v, want %v", tc.path, got, tc.refresh)
		}
	}
}

// TestRunPageHasOneAddress: /runs/01 and /runs/+1 are redirected to /runs/1 (keeping the query) rather than
// served as copies of it.
func TestRunPageHasOneAddress(t *testing.T) {
	srv := startServer(t, writeFixture(t))
	c := *srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, path := range []string{"/runs/01", "/runs/+1", "/runs/%2B1", "/runs/0001?x=1"} {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := "/runs/1"
		if strings.Contains(path, "?") {
			want += "?x=1"
		}
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want %d to %q", path, resp.StatusCode, resp.Header.Get("Location"), http.StatusMovedPermanently, want)
		}
	}
}
