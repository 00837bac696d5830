package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/browsertest"
	"github.com/fleetlab/fleet/serve"
	"github.com/fleetlab/fleet/store"
)

// hostileCapture is an openssl speed paste whose version, compiler and free text lines carry markup.
const hostileCapture = `<script>alert("capture")</script>
Doing AES-128-CBC for 1s on 16 size blocks: 33085935 AES-128-CBC's in 1.00s
Doing AES-128-CBC for 1s on 1024 size blocks: 1056258 AES-128-CBC's in 1.00s
version: 3.0.19 <script>alert("version")</script>
built on: <img src=x onerror=alert("built")>
options: bn(64,64)
compiler: gcc <a href="javascript:alert('compiler')">-O2</a>
The 'numbers' are in 1000s of bytes per second processed.
type             16 bytes   1024 bytes
AES-128-CBC     529374.96k  1081608.19k
`

// TestServeHostileImport imports a capture carrying <script>, <img onerror> and javascript: URLs under a
// hostile label, then serves it: the HTML holds none of it as markup, and neither does Chromium's DOM.
func TestServeHostileImport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	capture := filepath.Join(dir, "capture.txt")
	if err := os.WriteFile(capture, []byte(hostileCapture), 0o644); err != nil {
		t.Fatal(err)
	}
	label := `<script>alert("label")</script>`
	if _, stderr, code := runFleet(t, "import", "--board", "evil", "--label", label, "--db", db, capture); code != 0 {
		t.Fatalf("import exit %d:\n%s", code, stderr)
	}
	rdb, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	s := &serve.Server{DB: rdb, Logf: t.Logf}
	h, err := s.Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	pages := []string{"/", "/runs/1", "/compare", "/history?board=evil&mode=cpu&algorithm=aes-128-cbc&size=1024", "/api/runs/1"}
	for _, path := range pages {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d\n%.500s", path, resp.StatusCode, body)
		}
		low := strings.ToLower(string(body))
		for _, bad := range []string{"<script", "<img", `href="javascript:`} {
			if strings.Contains(low, bad) && !strings.HasPrefix(path, "/api/") {
				t.Errorf("GET %s: %q in the HTML", path, bad)
			}
		}
	}
	resp, err := http.Get(srv.URL + "/runs/1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "version: 3.0.19 &lt;script&gt;") {
		t.Errorf("the raw output's version line is not shown escaped")
	}

	b := browsertest.New(t)
	for _, path := range pages[:4] {
		p := b.Load(t, srv.URL+path)
		n := p.Eval(t, `String(document.querySelectorAll('script, img, iframe, [onerror], [onload], a[href^="javascript:" i]').length)`)
		if n != "0" {
			t.Errorf("%s: %s elements of stored markup in the DOM", path, n)
		}
		if len(p.ConsoleErrors) > 0 || len(p.FailedRequests) > 0 {
			t.Errorf("%s: console errors %q, failed requests %q", path, p.ConsoleErrors, p.FailedRequests)
		}
	}
}

func TestServeRefusesWithoutAuthOffLoopback(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeSweep(t, db, "nightly", map[string]float64{"cpu/16": 16000, "cpu/16384": 1.6e8, "devcrypto/16": 4000, "devcrypto/16384": 4e8})
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"serve", "--db", db, "--listen", ":8080"}, "--password-file or --no-auth"},
		{[]string{"serve", "--db", db, "--listen", "0.0.0.0:8080", "--no-auth", "--password-file", "x"}, "exclude each other"},
		{[]string{"serve", "--db", db, "--listen", "nonsense"}, "host:port"},
		{[]string{"serve", "--db", filepath.Join(t.TempDir(), "none.db")}, "no database"},
		{[]string{"serve", "--db", db, "--listen", "127.0.0.1:0", "--password-file", filepath.Join(t.TempDir(), "missing")}, "password file"},
	} {
		t.Run(strings.Join(tc.args[3:], " "), func(t *testing.T) {
			_, stderr, code := runFleet(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.msg)
			}
		})
	}
}
