package serve

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestRegressPageAllInvalidBaseline: a baseline label whose every run was invalid (a busy lab machine, the first
// nights of a newcomer) is a page that says the series were not judged and why, as fleet regress's exit 4 does,
// not a 404 "not found" as though the label did not exist.
func TestRegressPageAllInvalidBaseline(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.Now = fixtureClock()
	for range 2 {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", ToolVersion: "v1", Host: "lab1"})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.BoardStarted(ctx, "local"))
		for _, size := range []int{16, 16384} {
			must(t, w.Point(ctx, "local", protocol.Point{Mode: "cpu", Algorithm: "sha256", BlockSize: size, Threads: 1,
				Count: 1000, Seconds: 1, Timing: "wall", BytesPerSec: float64(size) * 1e4, WallS: 1, UserS: 0.5, CPUPct: 50,
				Validity: protocol.ValidityInvalid, ValidityReasons: []string{"background CPU 76 % (limit 8 %)"}}))
		}
		must(t, w.BoardValidity(ctx, "local", protocol.ValidityInvalid, []string{"2 of 2 points invalid"}))
		must(t, w.BoardFinished(ctx, "local", protocol.StatusOK, ""))
		must(t, w.Finish(ctx, protocol.StatusOK))
	}
	must(t, db.Close())
	srv := startServer(t, path)
	resp, err := http.Get(srv.URL + "/regress?" + url.Values{"baseline": {"nightly"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200:\n%s", resp.StatusCode, body)
	}
	for _, want := range []string{"series were not judged", "exit 4", "invalid"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
}
