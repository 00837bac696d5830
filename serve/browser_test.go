package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/browsertest"
)

// markupQuery finds anything in the DOM that stored text could have smuggled in as markup.
const markupQuery = `String(document.querySelectorAll('script, img, iframe, object, embed, [onerror], [onload], ` +
	`[onclick], a[href^="javascript:" i]').length)`

// TestPagesInChromium loads every page in headless Chromium: no console error (CSP violations included), no
// failed request, no stored text turned into markup; screenshots of the runs, run, compare and history pages
// (kept in $FLEET_SCREENSHOTS when set); and the database file is byte for byte the same afterwards.
func TestPagesInChromium(t *testing.T) {
	b := browsertest.New(t)
	path := writeFixture(t)
	before := fileSums(t, path)
	srv := startServer(t, path)
	shots := os.Getenv("FLEET_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	for _, tc := range []struct{ name, path, shot, text string }{
		{"runs", "/", "runs.png", "Runs"},
		{"run", "/runs/3", "run.png", "Cortex-A53, 2 cores"},
		{"running run", "/runs/4", "", "Progress"},
		{"compare", "/compare?run=3&modes=cpu,devcrypto", "compare.png", "am64x devcrypto"},
		{"history", "/history?board=am64x&mode=devcrypto&algorithm=aes-128-cbc&size=16384", "history.png", "run start (UTC)"},
		{"history by run", "/history?board=am64x&mode=devcrypto&algorithm=aes-128-cbc&size=16384&axis=runs", "history-runs.png", "#3 nightly"},
		{"regress", "/regress?baseline=2&run=3", "regress.png", "regressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := b.Load(t, srv.URL+tc.path)
			if len(p.ConsoleErrors) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(p.ConsoleErrors, "\n"))
			}
			if len(p.FailedRequests) > 0 {
				t.Errorf("failed requests:\n%s", strings.Join(p.FailedRequests, "\n"))
			}
			if n := p.Eval(t, markupQuery); n != "0" {
				t.Errorf("%s elements of stored markup in the DOM", n)
			}
			text := p.Eval(t, "document.body.innerText")
			if !strings.Contains(text, tc.text) {
				t.Errorf("page text lacks %q", tc.text)
			}
			if tc.name == "run" && !strings.Contains(text, `<script>alert("x")</script>`) {
				t.Errorf("the hostile version line is not shown as text")
			}
			if tc.name == "run" { // the driver list is on the page, folded
				if all := p.Eval(t, "document.body.textContent"); !strings.Contains(all, "cbc(aes) → cbc-aes-sa2ul (400)") {
					t.Errorf("the run page lacks the driver list")
				}
				if strings.Contains(text, "cbc(aes) → cbc-aes-sa2ul (400)") {
					t.Errorf("the driver list is shown unfolded")
				}
			}
			if tc.name == "compare" || tc.name == "regress" {
				// every row links to its series' history, and the first such link answers (no 404)
				rows := p.Eval(t, `String(document.querySelectorAll('main table tr:has(td)').length)`)
				linked := p.Eval(t, `String(document.querySelectorAll('main table tr:has(td a[href^="/history?"])').length)`)
				if rows == "0" || rows != linked {
					t.Errorf("%s of %s table rows link to a history", linked, rows)
				}
				href := p.Eval(t, `document.querySelector('main table td a[href^="/history?"]').getAttribute('href')`)
				if h := b.Load(t, srv.URL+href); len(h.FailedRequests) > 0 {
					t.Errorf("%s: %v", href, h.FailedRequests)
				}
			}
			if tc.shot != "" {
				p.Screenshot(t, filepath.Join(shots, tc.shot))
			}
		})
	}
	if after := fileSums(t, path); after != before {
		t.Errorf("database files changed by browsing:\nbefore %s\nafter  %s", before, after)
	}
}

// fileSums hashes the database file and says whether a -wal file with content sits beside it.
func fileSums(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	out := filepath.Base(path) + " " + hex.EncodeToString(s[:])
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		wal, _ := os.ReadFile(path + "-wal")
		w := sha256.Sum256(wal)
		out += " wal " + hex.EncodeToString(w[:])
	}
	return out
}
