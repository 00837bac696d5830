package store

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestLatestPointsMatchesHistory: over randomized histories (runs of random labels, some started before
// others as imports are, boards measuring random series with repeats, failed and invalid points, failed runs,
// boards dropped after their run, vendor references), LatestPoints reads what searching every point gives: per
// series, all points of the newest non-reference run (by start, then id) that has points of it, whatever their
// validity, failure or the run's status; each point with its run's label, start and tool as Measurements
// reads them. And a copy of the database answers the same.
func TestLatestPointsMatchesHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for seed := range uint64(3) {
			t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
				ctx := context.Background()
				db := b.open(t)
				db.BatchSize = 5
				rng := rand.New(rand.NewPCG(seed, 28))
				for i := range 16 {
					writeRandomRun(t, db, rng, i, dropBoard)
					if i%4 == 3 {
						checkLatestPoints(t, db, fmt.Sprint("after run ", i))
					}
				}
				dst := b.open(t)
				if _, err := Copy(ctx, db, dst, CopyFilter{}, nil); err != nil {
					t.Fatal(err)
				}
				checkLatestPoints(t, dst, "in a copy")
			})
		}
	})
}

var (
	randomBoards = []string{"a", "b", "c"}
	randomModes  = []string{"cpu", "soft"}
	randomAlgs   = []string{"aes-128-cbc", "sha256"}
	randomSizes  = []int{16, 1024}
)

// dropBoard drops a board of a finished run with DropBoards.
func dropBoard(t *testing.T, w *RunWriter, board string) {
	t.Helper()
	if _, err := w.DropBoards(context.Background(), []string{board}); err != nil {
		t.Fatal(err)
	}
}

// writeRandomRun writes run i of a randomized history, or a vendor reference now and then; drop drops a board
// of a third of the runs after they finish.
func writeRandomRun(t *testing.T, db *DB, rng *rand.Rand, i int, drop func(*testing.T, *RunWriter, string)) {
	t.Helper()
	ctx := context.Background()
	if rng.IntN(8) == 0 {
		var ps []BoardPoint
		for _, s := range randomSizes {
			ps = append(ps, BoardPoint{Board: "a", Point: pt("cpu", "aes-128-cbc", s, 0, 9e9)})
		}
		if _, err := db.ImportReference(ctx, RunInfo{Label: "vendor", ToolVersion: "ref"}, ps); err != nil {
			t.Fatal(err)
		}
		return
	}
	info := RunInfo{Label: []string{"nightly", "adhoc", ""}[rng.IntN(3)], ToolVersion: fmt.Sprint("v", i)}
	switch rng.IntN(5) {
	case 0: // an import of results taken long ago
		info.Started = time.Date(2026, 1, 1+rng.IntN(20), 0, 0, 0, 0, time.UTC)
	case 1: // the same start as another run: the id decides
		info.Started = time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	}
	w, err := db.BeginRun(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	var measured []string
	for _, board := range randomBoards {
		if rng.IntN(4) == 0 {
			continue
		}
		must(t, w.BoardStarted(ctx, board))
		n := 0
		for _, mode := range randomModes {
			for _, alg := range randomAlgs {
				for _, size := range randomSizes {
					if rng.IntN(2) == 0 {
						continue
					}
					for r := range 1 + rng.IntN(3) {
						p := pt(mode, alg, size, r, float64(1000*i+r))
						if rng.IntN(6) == 0 {
							p.Failed, p.Error, p.BytesPerSec = true, "openssl exited 1", 0
						}
						p.Validity = []string{"", "ok", "suspect", "invalid"}[rng.IntN(4)]
						if p.Validity == "invalid" {
							p.ValidityReasons = []string{"background CPU"}
						}
						must(t, w.Point(ctx, board, p))
						n++
					}
				}
			}
		}
		status := protocol.StatusOK
		if n == 0 || rng.IntN(5) == 0 {
			status = protocol.StatusFailed
		}
		must(t, w.BoardFinished(ctx, board, status, ""))
		measured = append(measured, board)
	}
	must(t, w.Finish(ctx, []protocol.Status{protocol.StatusOK, protocol.StatusPartial}[rng.IntN(2)]))
	if len(measured) > 0 && rng.IntN(3) == 0 { // a board refused after all, with what it had measured
		drop(t, w, measured[rng.IntN(len(measured))])
	}
}

// checkLatestPoints compares LatestPoints under a few filters with a search of every point of db.
func checkLatestPoints(t *testing.T, db *DB, when string) {
	t.Helper()
	ctx := context.Background()
	all, err := db.Measurements(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	reference := referenceRuns(t, db)
	for _, f := range []Filter{{}, {Board: "a"}, {Mode: "soft"}, {Algorithm: "sha256", Size: 1024, SizeSet: true}} {
		want := searchLatest(all, reference, f)
		got, err := db.LatestPoints(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 && f == (Filter{}) {
			t.Errorf("%s: no points for %+v; the history is too thin to test", when, f)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: LatestPoints(%+v) = %d points %v\nsearching every point: %d points %v", when, f, len(got),
				pointIDs(got), len(want), pointIDs(want))
		}
	}
}

// searchLatest is "latest per series" the slow way: per series, the points of its newest measured run.
func searchLatest(all []Measurement, reference map[int64]bool, f Filter) []Measurement {
	type newest struct {
		started time.Time
		run     int64
	}
	latest := map[series]newest{}
	for _, m := range all {
		if reference[m.RunID] {
			continue
		}
		k := seriesOf(m.Board, &m.Point)
		n, ok := latest[k]
		if !ok || m.RunStarted.After(n.started) || (m.RunStarted.Equal(n.started) && m.RunID > n.run) {
			latest[k] = newest{m.RunStarted, m.RunID}
		}
	}
	var out []Measurement
	for _, m := range all {
		n, ok := latest[seriesOf(m.Board, &m.Point)]
		if !ok || n.run != m.RunID || (f.Board != "" && m.Board != f.Board) || (f.Mode != "" && m.Mode != f.Mode) ||
			(f.Algorithm != "" && m.Algorithm != f.Algorithm) || (f.SizeSet && m.BlockSize != f.Size) {
			continue
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Measurement) int {
		return cmp.Or(compareSeries(seriesOf(a.Board, &a.Point), seriesOf(b.Board, &b.Point)), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func pointIDs(ms []Measurement) []int64 {
	var ids []int64
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestMigrationRebuildsLatest: a database at schema 9 whose boards were dropped as DropBoards did before
// migration 10 (their series' latest rows deleted and not given back to older runs, their point counts kept)
// answers "latest per series" as a search of every point does once the migration has run, and counts only the
// points it has.
func TestMigrationRebuildsLatest(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		dsn := b.newDSN(t)
		// and 0012's and 0013's columns (cpus, energy), which today's writer fills: the migration under test is 0010
		old := openAtSchema(t, dsn, 9, 12, 13)
		old.Now = newClock().now
		rng := rand.New(rand.NewPCG(7, 28))
		dropped := 0
		oldDrop := func(t *testing.T, w *RunWriter, board string) {
			for _, table := range []string{"measurements", "skips", "raw_outputs", "latest", "leases", "board_runs"} {
				if _, err := old.db.ExecContext(ctx, `DELETE FROM `+table+` WHERE run_id = ? AND board = ?`, w.RunID(),
					board); err != nil {
					t.Fatal(err)
				}
			}
			dropped++
		}
		for i := range 16 {
			writeRandomRun(t, old, rng, i, oldDrop)
		}
		if dropped == 0 {
			t.Fatal("no board dropped: the history does not test the migration")
		}
		all, err := old.Measurements(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		before, err := old.LatestPoints(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(pointIDs(before), pointIDs(searchLatest(all, referenceRuns(t, old), Filter{}))) {
			t.Fatal("the old drops left latest right: the history does not test the migration")
		}
		old.Close()

		db := openAt(t, dsn)
		if got := db.Migrated(); !slices.Contains(got, "0010_latest_after_drops") {
			t.Errorf("Open of a schema 9 database applied %q, want 0010_latest_after_drops", got)
		}
		checkLatestPoints(t, db, "after the migration")
		runs, err := db.Runs(ctx, RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		points := map[int64]int{}
		for _, m := range all {
			points[m.RunID]++
		}
		for _, r := range runs {
			if r.Points != points[r.ID] {
				t.Errorf("run %d counts %d points after the migration, has %d", r.ID, r.Points, points[r.ID])
			}
		}
	})
}

// referenceRuns tells which runs of db are vendor references.
func referenceRuns(t *testing.T, db *DB) map[int64]bool {
	t.Helper()
	runs, err := db.Runs(context.Background(), RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	reference := map[int64]bool{}
	for _, r := range runs {
		reference[r.ID] = r.Status == protocol.StatusReference
	}
	return reference
}
