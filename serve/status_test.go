package serve

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestStatusState: the word and colour of every status, with and without its points' validity, from the one
// table every page uses.
func TestStatusState(t *testing.T) {
	allInvalid := store.Judged{Invalid: 24}
	someSuspect := store.Judged{OK: 20, Suspect: 4}
	allOK := store.Judged{OK: 24}
	for _, tt := range []struct {
		status protocol.Status
		gone   bool
		j      store.Judged
		want   state
	}{
		{protocol.StatusOK, false, allOK, stateOK},
		{protocol.StatusOK, false, store.Judged{}, stateOK},
		{protocol.StatusOK, false, allInvalid, stateInvalid},
		{protocol.StatusOK, false, someSuspect, stateSuspect},
		{protocol.StatusOK, false, store.Judged{OK: 23, Invalid: 1}, stateSuspect},
		{protocol.StatusImported, false, store.Judged{}, stateImported},
		{protocol.StatusImported, false, allInvalid, stateInvalid},
		{protocol.StatusRunning, false, allInvalid, stateRunning},
		{protocol.StatusRunning, true, allOK, stateInterrupted},
		{protocol.StatusInterrupted, false, allOK, stateInterrupted},
		{protocol.StatusFailed, false, allInvalid, stateFailed},
		{protocol.StatusPartial, false, allOK, statePartial},
		{protocol.StatusReference, false, store.Judged{}, stateReference},
	} {
		got := runState(store.Run{Status: tt.status, Points: 24, Judged: tt.j}, tt.gone)
		if got != tt.want {
			t.Errorf("runState(%s, gone %v, %+v) = %s, want %s", tt.status, tt.gone, tt.j, got, tt.want)
		}
	}
	for _, l := range stateLegend() {
		if l.State.Class() != "state-"+l.State.Word() || !strings.Contains(css, "."+l.State.Class()) {
			t.Errorf("state %s: class %s has no colour in fleet.css", l.State, l.State.Class())
		}
	}
}

// writeDeadRunFixture stores a run whose controller was killed while measuring board am64x (its board row still
// running, its lease gone) and one that holds imx6q's lease for as long as the test lasts.
func writeDeadRunFixture(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, alive := range []bool{false, true} {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Host: "lab1"})
		if err != nil {
			t.Fatal(err)
		}
		board := "am64x"
		if alive {
			board = "imx6q"
		}
		if _, ok, err := w.AcquireLease(ctx, board, 100*365*24*time.Hour); err != nil || !ok {
			t.Fatalf("lease: %v, %v", ok, err)
		}
		must(t, w.BoardStarted(ctx, board))
		if !alive {
			must(t, w.ReleaseLease(ctx, board)) // as if it had expired and another run had come and gone
		}
	}
	return path
}

// TestDeadRunReadsInterrupted: a run still marked running whose lease is gone reads "interrupted" on the runs
// page and its own page (which says why and does not reload itself), never "running for …"; a run that holds
// its lease still reads running.
func TestDeadRunReadsInterrupted(t *testing.T) {
	srv := startServer(t, writeDeadRunFixture(t))
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	rows := regexp.MustCompile(`(?s)<tr><td class="num"><a href="/runs/(\d)">.*?</tr>`).FindAllStringSubmatch(get("/"), -1)
	if len(rows) != 2 {
		t.Fatalf("runs page has %d run rows, want 2", len(rows))
	}
	for _, row := range rows { // newest first: run 2 alive, run 1 dead
		switch row[1] {
		case "1":
			if !strings.Contains(row[0], `class="state-interrupted" title="am64x is still marked running but its lease is gone">interrupted<`) ||
				strings.Contains(row[0], "running for") {
				t.Errorf("the dead run's row %s, want interrupted (saying why), no \"running for\"", row[0])
			}
		case "2":
			if !strings.Contains(row[0], `class="state-running">running<`) || !strings.Contains(row[0], "running for") {
				t.Errorf("the live run's row %s, want running", row[0])
			}
		}
	}
	dead := get("/runs/1")
	for _, want := range []string{`<span class="state-interrupted">interrupted</span>`, "its lease is gone",
		"interrupted: am64x is still marked running"} {
		if !strings.Contains(dead, want) {
			t.Errorf("the dead run's page lacks %q", want)
		}
	}
	if strings.Contains(dead, `http-equiv="refresh"`) || strings.Contains(dead, "<h2>Progress</h2>") {
		t.Error("the dead run's page reloads itself or shows progress, as if it were running")
	}
	if live := get("/runs/2"); !strings.Contains(live, `http-equiv="refresh"`) || !strings.Contains(live, `<span class="state-running">running</span>`) {
		t.Error("the live run's page does not read running or does not reload itself")
	}
}
