package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestCopyTwiceCopiesNothingTheSecondTime: every run comes across whole and exact (board runs with facts and
// validity, skips, raw outputs, points with validity and evidence), under the destination's own ids beside
// its own runs; a second copy finds every run there by UUID and copies nothing.
func TestCopyTwiceCopiesNothingTheSecondTime(t *testing.T) {
	forEachBackendPair(t, testCopyTwice)
}

func testCopyTwice(t *testing.T, src, dst *DB) {
	ctx := context.Background()
	uuids := seedCopySource(t, src)
	own := beginRun(t, dst, RunInfo{Label: "dst's own", Started: at(0)}, "c", 3) // takes id 1 in dst

	res, err := Copy(ctx, src, dst, CopyFilter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res, (CopyResult{Copied: len(uuids), Points: 2*6 + 3 + 4, Present: 0}); !sameResult(got, want) {
		t.Errorf("first copy = %+v, want %+v", got, want)
	}
	for _, u := range uuids {
		if got, want := dumpRun(t, dst, u), dumpRun(t, src, u); got != want {
			t.Errorf("run %s in dst differs from src:\ndst %s\nsrc %s", u, got, want)
		}
		if id, _ := dst.ResolveRun(ctx, u); id == own {
			t.Errorf("run %s was copied onto dst's own run id %d", u, own)
		}
	}
	res, err = Copy(ctx, src, dst, CopyFilter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res, (CopyResult{Present: len(uuids)}); !sameResult(got, want) {
		t.Errorf("second copy = %+v, want %+v", got, want)
	}
	if runs, err := dst.Runs(ctx, RunFilter{}); err != nil || len(runs) != len(uuids)+1 {
		t.Errorf("dst has %d runs (%v) after copying twice, want %d", len(runs), err, len(uuids)+1)
	}
}

// TestCopyKeepsLatestRight: the latest table of the destination names the newest run of each series whatever
// order runs arrive in: an old run copied after a newer one (copied, or dst's own) never hides it.
func TestCopyKeepsLatestRight(t *testing.T) {
	forEachBackendPair(t, testCopyKeepsLatestRight)
}

func testCopyKeepsLatestRight(t *testing.T, src, dst *DB) {
	ctx := context.Background()
	older := beginRun(t, src, RunInfo{Started: at(1)}, "a", 2)
	newer := beginRun(t, src, RunInfo{Started: at(3)}, "a", 2)
	beginRun(t, dst, RunInfo{Started: at(2), Label: "dst"}, "b", 2) // board b: dst's own, newer than older
	beginRun(t, src, RunInfo{Started: at(1)}, "b", 2)
	for _, id := range []int64{newer, older} { // newest first, then the rest
		if _, err := Copy(ctx, src, dst, CopyFilter{RunIDs: []int64{id}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Copy(ctx, src, dst, CopyFilter{}, nil); err != nil {
		t.Fatal(err)
	}
	ms, err := dst.LatestPoints(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Time{}
	for _, m := range ms {
		got[m.Board] = m.RunStarted
	}
	if want := map[string]time.Time{"a": at(3), "b": at(2)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("latest run per board in dst started %v, want %v", got, want)
	}
}

// TestCopyInterruptedLeavesWholeRuns: a copy cancelled in the middle of a run (Ctrl-C) leaves the runs before
// it whole and nothing of that run; copying again resumes and ends with dst equal to src.
func TestCopyInterruptedLeavesWholeRuns(t *testing.T) {
	forEachBackendPair(t, testCopyInterrupted)
}

func testCopyInterrupted(t *testing.T, src, dst *DB) {
	var uuids []string
	for i := range 3 {
		id := beginRun(t, src, RunInfo{Started: at(i)}, "a", 3*maxRowsPerInsert)
		run, err := src.Run(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		uuids = append(uuids, run.UUID)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var second int64
	_, err := Copy(ctx, src, dst, CopyFilter{}, func(p CopyProgress) {
		if p.Runs == 1 && p.Points > 3*maxRowsPerInsert { // a batch of the second run is written, not committed
			second = p.Run
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted copy = %v, want context.Canceled", err)
	}
	if second == 0 {
		t.Fatal("the copy never reached the second run's points")
	}
	bg := context.Background()
	if got, want := dumpRun(t, dst, uuids[0]), dumpRun(t, src, uuids[0]); got != want {
		t.Errorf("the run copied before the interrupt is not whole:\ndst %s\nsrc %s", got, want)
	}
	if _, err := dst.ResolveRun(bg, uuids[1]); !errors.Is(err, ErrNotFound) {
		t.Errorf("the run interrupted in the middle is in dst (%v); want nothing of it", err)
	}
	for _, c := range []struct {
		table string
		want  int
	}{{"runs", 1}, {"board_runs", 1}, {"measurements", 3 * maxRowsPerInsert}, {"latest", 3 * maxRowsPerInsert}} {
		var n int
		if err := dst.db.QueryRowContext(bg, `SELECT count(*) FROM `+c.table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("dst has %d rows in %s after the interrupt, want %d (the first run's only)", n, c.table, c.want)
		}
	}
	res, err := Copy(bg, src, dst, CopyFilter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res, (CopyResult{Copied: 2, Points: 6 * maxRowsPerInsert, Present: 1}); !sameResult(got, want) {
		t.Errorf("copy after the interrupt = %+v, want %+v", got, want)
	}
	for _, u := range uuids {
		if got, want := dumpRun(t, dst, u), dumpRun(t, src, u); got != want {
			t.Errorf("run %s differs after resuming:\ndst %s\nsrc %s", u, got, want)
		}
	}
}

// TestCopySkipsRunningRuns: a run still marked running is left out and named, unless asked for; then it is
// copied as it is, still running.
func TestCopySkipsRunningRuns(t *testing.T) {
	forEachBackendPair(t, testCopySkipsRunning)
}

func testCopySkipsRunning(t *testing.T, src, dst *DB) {
	ctx := context.Background()
	beginRun(t, src, RunInfo{Started: at(0)}, "a", 2)
	w, err := src.BeginRun(ctx, RunInfo{Started: at(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1e6)); err != nil {
		t.Fatal(err)
	}
	if err := w.BoardStarted(ctx, "a"); err != nil { // commits the point; the run stays running
		t.Fatal(err)
	}
	res, err := Copy(ctx, src, dst, CopyFilter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res, (CopyResult{Copied: 1, Points: 2, Running: []int64{w.RunID()}}); !sameResult(got, want) {
		t.Errorf("copy = %+v, want %+v", got, want)
	}
	res, err = Copy(ctx, src, dst, CopyFilter{IncludeRunning: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res, (CopyResult{Copied: 1, Points: 1, Present: 1}); !sameResult(got, want) {
		t.Errorf("copy with IncludeRunning = %+v, want %+v", got, want)
	}
	if got, want := dumpRun(t, dst, w.UUID()), dumpRun(t, src, w.UUID()); got != want {
		t.Errorf("running run copied differently:\ndst %s\nsrc %s", got, want)
	}
}

// TestCopyFilters: --runs (ids or UUIDs), --board and --since select whole runs.
func TestCopyFilters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) { testCopyFilters(t, b.open(t)) })
}

func testCopyFilters(t *testing.T, src *DB) {
	a0 := beginRun(t, src, RunInfo{Started: at(0)}, "a", 1)
	b1 := beginRun(t, src, RunInfo{Started: at(1)}, "b", 1)
	a2 := beginRun(t, src, RunInfo{Started: at(2)}, "a", 1)
	runB1, err := src.Run(context.Background(), b1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		f    CopyFilter
		want []int64
	}{
		{"all", CopyFilter{}, []int64{a0, b1, a2}},
		{"ids", CopyFilter{RunIDs: []int64{a2, a0}}, []int64{a0, a2}},
		{"uuid", CopyFilter{RunUUIDs: []string{runB1.UUID}}, []int64{b1}},
		{"board", CopyFilter{Board: "a"}, []int64{a0, a2}},
		{"since", CopyFilter{Since: at(1)}, []int64{b1, a2}},
		{"board and since", CopyFilter{Board: "a", Since: at(1)}, []int64{a2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := src.copyCandidates(context.Background(), tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range runs {
				got = append(got, r.id)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("runs selected = %v, want %v", got, tt.want)
			}
		})
	}
}

// forEachBackendPair runs f as a subtest per pair of backends, source and destination, each a new database:
// SQLite to SQLite, SQLite to PostgreSQL, PostgreSQL to SQLite, PostgreSQL to PostgreSQL.
func forEachBackendPair(t *testing.T, f func(t *testing.T, src, dst *DB)) {
	t.Helper()
	for _, from := range backends {
		for _, to := range backends {
			t.Run(from.name+"_to_"+to.name, func(t *testing.T) { f(t, from.open(t), to.open(t)) })
		}
	}
}

// at is a run start i hours into a fixed day.
func at(i int) time.Time { return time.Date(2026, 3, 1, i, 0, 0, 0, time.UTC) }

// beginRun stores a finished run of one board with n points (one series per point) and returns its id.
func beginRun(t *testing.T, db *DB, info RunInfo, board string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	w, err := db.BeginRun(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Point(ctx, board, pt("cpu", "aes-128-cbc", 16*(i+1), 0, 1e6)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.BoardFinished(ctx, board, protocol.StatusOK, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	return w.RunID()
}

// seedCopySource stores what a run can own: a run of two boards with facts, validity, raw outputs, skips and
// points with evidence, a failed one, and an import; it returns their UUIDs.
func seedCopySource(t *testing.T, db *DB) []string {
	t.Helper()
	ctx := context.Background()
	w, err := db.BeginRun(ctx, RunInfo{Label: "nightly", ToolVersion: "v1", Host: "ci-3",
		CommandLine: "fleet run --boards a,b", Started: at(2)})
	if err != nil {
		t.Fatal(err)
	}
	bg := 3.5
	for _, board := range []string{"a", "b"} {
		must(t, w.BoardStarted(ctx, board))
		must(t, w.BoardFacts(ctx, board, protocol.Facts{Hostname: board + "-host", Kernel: "6.1", OpenSSLVersion: "3.0.13"}))
		must(t, w.Raw(ctx, board, rawOf(1, "aes-128-cbc 1000.00k\n")))
		must(t, w.Skip(ctx, board, protocol.Skip{Mode: "devcrypto", Reason: "no /dev/crypto"}))
		for i := range 6 {
			p := pt("cpu", "aes-128-cbc", 16<<i, i%2, 1e6*float64(i+1))
			p.RawID, p.Flags = 1, []string{"accounting-split"}
			p.Validity, p.ValidityReasons = protocol.ValiditySuspect, []string{"background CPU 3.5 %"}
			p.Evidence = &protocol.Evidence{Cores: 2, BackgroundPct: &bg}
			must(t, w.Point(ctx, board, p))
		}
		must(t, w.BoardValidity(ctx, board, protocol.ValiditySuspect, []string{"background CPU 3.5 %"}))
		must(t, w.BoardFinished(ctx, board, protocol.StatusOK, ""))
	}
	must(t, w.Finish(ctx, protocol.StatusOK))

	f, err := db.BeginRun(ctx, RunInfo{Label: "nightly", Started: at(3)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		must(t, f.Point(ctx, "a", pt("soft", "sha256", 16<<i, 0, 1e5)))
	}
	must(t, f.BoardFinished(ctx, "a", protocol.StatusFailed, "lost the link"))
	must(t, f.Finish(ctx, protocol.StatusPartial))

	tx, err := db.BeginImport(ctx, RunInfo{Label: "wiki", Started: at(1)})
	if err != nil {
		t.Fatal(err)
	}
	must(t, tx.StartRun(ctx, "c", "imported from old.txt"))
	for i := range 4 {
		must(t, tx.Point(ctx, pt("cpu", "aes-128-cbc", 16<<i, 0, 2e6)))
	}
	if _, err := tx.EndRun(ctx, protocol.StatusOK, ""); err != nil {
		t.Fatal(err)
	}
	must(t, tx.Commit())

	runs, err := db.Runs(ctx, RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var uuids []string
	for _, r := range runs {
		uuids = append(uuids, r.UUID)
	}
	return uuids
}

// dumpRun renders everything stored of the run with this UUID, without the database's own ids.
func dumpRun(t *testing.T, db *DB, uuid string) string {
	t.Helper()
	ctx := context.Background()
	id, err := db.ResolveRun(ctx, uuid)
	if err != nil {
		t.Fatalf("%s: %v", db.Path, err)
	}
	run, err := db.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	brs, err := db.BoardRuns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	raws, err := db.RawOutputs(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := db.Measurements(ctx, Filter{RunID: id})
	if err != nil {
		t.Fatal(err)
	}
	run.ID = 0
	for i := range brs {
		// Previous names another run of the same database, which a copy of one run need not have.
		brs[i].RunID, brs[i].Previous = 0, nil
	}
	for i := range raws {
		raws[i].RunID = 0
	}
	for i := range ms {
		ms[i].ID, ms[i].RunID = 0, 0
	}
	b, err := json.Marshal([]any{run, brs, raws, ms})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sameResult(a, b CopyResult) bool { return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCopyRefusesMixedLabel: a reference copied where its label names measured runs (or the other way round)
// is refused before anything is copied, naming the run and the label: after it, the label selected no run
// (ErrLabelMixed) in the destination, though it did in each database.
func TestCopyRefusesMixedLabel(t *testing.T) {
	forEachBackendPair(t, func(t *testing.T, src, dst *DB) {
		ctx := context.Background()
		ref := BoardPoint{Board: "am64x", Point: protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt",
			BlockSize: 16384, Threads: 1, BytesPerSec: 727.48e6, Line: 3}}
		if _, err := src.ImportReference(ctx, RunInfo{Label: "ti", Source: "vendor"}, []BoardPoint{ref}); err != nil {
			t.Fatal(err)
		}
		beginRun(t, src, RunInfo{Started: at(1), Label: "other"}, "a", 1)
		measured := beginRun(t, dst, RunInfo{Started: at(0), Label: "ti"}, "a", 1)
		_, err := Copy(ctx, src, dst, CopyFilter{}, nil)
		if !errors.Is(err, ErrLabelMixed) || !strings.Contains(err.Error(), `a reference, label "ti"`) {
			t.Fatalf("Copy(reference onto a measured label) = %v, want ErrLabelMixed naming the run and label", err)
		}
		if n := countRuns(t, dst); n != 1 {
			t.Errorf("dst has %d runs after the refused copy, want its own 1 (nothing copied)", n)
		}
		if got, err := dst.ResolveRun(ctx, "ti"); err != nil || got != measured {
			t.Errorf("ResolveRun(ti) in dst = %d, %v; want its measured run %d", got, err, measured)
		}
	})
}

func countRuns(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.db.QueryRowContext(context.Background(), `SELECT count(*) FROM runs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
