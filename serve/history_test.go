package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHistoryMarksChange: the history page of a series with a step marks it (the run where the new level starts)
// and lists it with the level before and after and the kernel that changed; a series without a step has none.
func TestHistoryMarksChange(t *testing.T) {
	srv := startServer(t, writeHistoryFixture(t))
	get := func(p string) string { return getStatus(t, srv, p, 200) }
	page := get(historyURL)
	if n := strings.Count(page, `class="change" stroke`); n != 1 {
		t.Errorf("%d change marks, want 1", n)
	}
	for _, want := range []string{"#1 −85", "to <a href=\"/runs/25\">run 25</a>", "from <a href=\"/runs/24\">run 24</a>",
		"1200 → 180", "kernel 6.1.0-18-amd64 → 6.1.0-21-amd64"} {
		if !strings.Contains(page, want) {
			t.Errorf("history page lacks %q", want)
		}
	}
	if page := get("/history?board=local&mode=cpu&algorithm=sha256&size=16384"); strings.Contains(page, `class="change"`) {
		t.Errorf("sha256 (no step) is marked")
	}
}

// TestChangesPageFilters: /changes lists local's step (newest first, linked to its history) and filters by
// board, inventory tag and label.
func TestChangesPageFilters(t *testing.T) {
	path := writeHistoryFixture(t)
	srv := startServerTags(t, path, map[string][]string{"local": {"x86", "lab"}, "other": {"lab"}})
	get := func(p string, status int) string { return getStatus(t, srv, p, status) }
	step := `<a href="/history?algorithm=aes-128-cbc&amp;board=local&amp;mode=cpu&amp;size=16384">local cpu aes-128-cbc 16384 B</a>`
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/changes", true}, {"/changes?board=local", true}, {"/changes?tag=x86", true}, {"/changes?label=nightly", true},
		{"/changes?board=other", false}, {"/changes?tag=lab&board=other", false}, {"/changes?label=weekly", false},
	} {
		page := get(tc.path, 200)
		if got := strings.Contains(page, step); got != tc.want {
			t.Errorf("%s lists the step: %v, want %v", tc.path, got, tc.want)
		}
	}
	page := get("/changes", 200)
	if i, j := strings.Index(page, "local cpu aes-128-cbc 16384 B"), strings.Index(page, "local cpu aes-128-cbc 16 B"); i < 0 || j < 0 {
		t.Errorf("the step is not listed at every size")
	}
	if !strings.Contains(page, "kernel 6.1.0-18-amd64 → 6.1.0-21-amd64") {
		t.Errorf("the change does not name the kernel")
	}
	get("/changes?tag=nosuch", 404)
}

// getStatus GETs path from srv and returns the body, failing the test unless the status is status.
func getStatus(t *testing.T, srv *httptest.Server, path string, status int) string {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %s", path, resp.StatusCode, status, b)
	}
	return string(b)
}
