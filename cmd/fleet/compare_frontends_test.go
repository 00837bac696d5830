package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/serve"
	"github.com/fleetlab/fleet/store"
)

// TestCompareFrontEndsAgree: fleet compare and the dashboard build one view of a run with mode ssh points
// (report.NewCompareView): /api/compare answers the bytes of compare --format json, the compare and run pages
// draw the SSH table (never an openssl table with a 67108864 B row), and a selection mixing both kinds is refused
// in JSON by both.
func TestCompareFrontEndsAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
	storeSSHRun(t, path)
	h := dashboard(t, path)
	get := func(p string, status int) string {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != status {
			t.Fatalf("GET %s: status %d, want %d: %s", p, rec.Code, status, rec.Body)
		}
		return rec.Body.String()
	}
	for _, modes := range []string{"ssh", "cpu"} {
		cli, stderr, code := runFleet(t, "--db", path, "compare", "--modes", modes, "--format", "json")
		if code != 0 {
			t.Fatalf("compare --modes %s --format json: exit %d: %s", modes, code, stderr)
		}
		if api := get("/api/compare?modes="+modes, 200); api != cli {
			t.Errorf("/api/compare?modes=%s differs from fleet compare --modes %s --format json:\n--- api\n%s\n--- cli\n%s", modes, modes, api, cli)
		}
	}
	text, _, code := runFleet(t, "--db", path, "compare")
	if code != 0 || !strings.Contains(text, "SSH throughput, 64 MiB each way") {
		t.Fatalf("fleet compare: exit %d, no SSH table:\n%s", code, text)
	}
	for _, p := range []string{"/compare", "/compare?modes=ssh", "/runs/1"} {
		page := get(p, 200)
		if !strings.Contains(page, "<h3>mode ssh</h3>") || !strings.Contains(page, "SSH throughput per cipher") || !strings.Contains(page, "SSH reaches 8 % uploading") {
			t.Errorf("%s lacks the SSH table", p)
		}
		if strings.Contains(page, "67108864 B") {
			t.Errorf("%s draws ssh points as an openssl table (a 67108864 B row)", p)
		}
	}
	wantUsage(t, []string{"--db", path, "compare", "--format", "json"}, "--format json holds one table")
	if body := get("/api/compare", 400); !strings.Contains(body, "--format json holds one table") {
		t.Errorf("/api/compare with both kinds: %s", body)
	}
}

// dashboard is fleet serve's handler over the database at path, opened read-only as fleet serve opens it.
func dashboard(t *testing.T, path string) http.Handler {
	t.Helper()
	db, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h, err := (&serve.Server{DB: db}).Handler()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
