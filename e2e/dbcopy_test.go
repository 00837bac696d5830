package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestDBCopyInterruptedResumes is fleet db copy as a user meets Ctrl-C: SIGINT in the middle of a copy ends it
// with exit 130, leaving in DST only whole runs (each with every point it has in SRC); the same command again
// copies the rest and says how many were there already; DST's latest points are SRC's.
func TestDBCopyInterruptedResumes(t *testing.T) {
	w := newWorld(t)
	src := filepath.Join(w.dir, "src.db")
	const runs, boards, perBoard = 20, 3, 1000
	seedRuns(t, src, runs, boards, perBoard)

	p := w.start("db", "copy", "--from", src, "--to", w.db)
	deadline := time.Now().Add(time.Minute)
	for copiedRuns(w.db) < 2 {
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("the copy ended (or stalled) before it could be interrupted after 2 runs:\n%s", p.wait(time.Minute))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	res := p.wait(time.Minute)
	if res.code != 130 {
		t.Fatalf("interrupted copy: exit %d, want 130:\n%s", res.code, res)
	}
	if !regexp.MustCompile(`copied \d+ runs? \(\d+ points?\) into .* before stopping; the same command copies the rest`).MatchString(res.stderr) {
		t.Errorf("interrupted copy does not say what it copied and how to go on:\n%s", res)
	}

	srcDB, dstDB := openStore(t, src), openStore(t, w.db)
	want := pointsByUUID(t, srcDB)
	got := pointsByUUID(t, dstDB)
	if len(got) == 0 || len(got) == runs {
		t.Fatalf("after the interrupt dst has %d of %d runs; want some but not all", len(got), runs)
	}
	for u, n := range got {
		if n != want[u] {
			t.Errorf("run %s in dst has %d points, src %d: an interrupted copy must leave whole runs", u, n, want[u])
		}
	}
	dstDB.Close()

	res = w.fleet("db", "copy", "--from", src, "--to", w.db)
	wantLine := fmt.Sprintf("copied %d runs (%d points), %d already there\n", runs-len(got), (runs-len(got))*boards*perBoard, len(got))
	if res.code != 0 || res.stdout != wantLine {
		t.Fatalf("copy again: want exit 0 and %q:\n%s", wantLine, res)
	}
	dstDB = openStore(t, w.db)
	if got := pointsByUUID(t, dstDB); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after resuming, dst's runs and points %v differ from src's %v", got, want)
	}
	if got, want := latestByUUID(t, dstDB), latestByUUID(t, srcDB); got != want {
		t.Errorf("dst's latest points differ from src's:\ndst %s\nsrc %s", got, want)
	}
	if res := w.fleet("db", "copy", "--from", src, "--to", w.db); res.code != 0 ||
		res.stdout != fmt.Sprintf("copied 0 runs, %d already there\n", runs) {
		t.Errorf("third copy: want exit 0 and nothing copied:\n%s", res)
	}
}

// seedRuns writes runs × boards × perBoard points into a new database at path, one series per point of a
// board, the runs an hour apart.
func seedRuns(t *testing.T, path string, runs, boards, perBoard int) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.BatchSize = 500
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for r := range runs {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Started: day.Add(time.Duration(r) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		for b := range boards {
			board := "board" + strconv.Itoa(b)
			for i := range perBoard {
				p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16 + i, Threads: 1,
					Count: 1e6, Seconds: 1, Timing: "wall", BytesPerSec: float64(1e6 * (r + 1)), WallS: 1, UserS: 1}
				if err := w.Point(ctx, board, p); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.BoardFinished(ctx, board, protocol.StatusOK, ""); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
	}
}

// copiedRuns counts the runs committed in the SQLite file at path so far (0 while it cannot be read).
func copiedRuns(path string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	if db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n) != nil {
		return 0
	}
	return n
}

func openStore(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// pointsByUUID maps each run's UUID to its point count.
func pointsByUUID(t *testing.T, db *store.DB) map[string]int {
	t.Helper()
	runs, err := db.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range runs {
		out[r.UUID] = r.Points
	}
	return out
}

// latestByUUID renders the latest points of every series with their run's UUID instead of its id.
func latestByUUID(t *testing.T, db *store.DB) string {
	t.Helper()
	ctx := context.Background()
	ms, err := db.LatestPoints(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	uuid := map[int64]string{}
	s := ""
	for _, m := range ms {
		if _, ok := uuid[m.RunID]; !ok {
			r, err := db.Run(ctx, m.RunID)
			if err != nil {
				t.Fatal(err)
			}
			uuid[m.RunID] = r.UUID
		}
		s += fmt.Sprintf("%s %s %d %s %g\n", m.Board, m.Algorithm, m.BlockSize, uuid[m.RunID], m.BytesPerSec)
	}
	return s
}
