package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/protocol"
)

// TestManyControllers: 8 controllers, each with its own handle as separate processes would have, write one
// database at once, measuring the same boards and series in different orders (so their updates of the latest
// points cross, the worst case for PostgreSQL's row locks). None sees an error — no "database is locked", no
// deadlock or serialization failure (retried) — each gets its own run id, no point is lost, and the latest point
// of every series is the newest run's.
func TestManyControllers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		dsn := b.newDSN(t)
		openAt(t, dsn).Close() // migrated once; TestConcurrentOpenMigrates covers opening a new one at once
		const controllers, boards, series, repeats = 8, 3, 20, 4
		ids := make([]int64, controllers)
		errs := make([]error, controllers)
		var wg sync.WaitGroup
		for c := range controllers {
			db := openAt(t, dsn)
			db.BatchSize = 7
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids[c], errs[c] = controller(ctx, db, c, boards, series, repeats)
			}()
		}
		wg.Wait()
		for c, err := range errs {
			if err != nil {
				t.Errorf("controller %d: %v", c, err)
			}
		}
		sorted := slices.Clone(ids)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != controllers {
			t.Errorf("run ids %v, want %d distinct", ids, controllers)
		}
		db := openAt(t, dsn)
		for _, id := range ids {
			if n := countPoints(t, db, id); n != boards*series*repeats {
				t.Errorf("run %d: %d points, want %d", id, n, boards*series*repeats)
			}
		}
		latest, err := db.LatestPoints(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(latest) != boards*series*repeats {
			t.Errorf("%d latest points, want %d", len(latest), boards*series*repeats)
		}
		for _, m := range latest {
			if m.RunID != sorted[controllers-1] { // every run started at the same clock time: the highest id wins
				t.Fatalf("latest point of %s %s %d from run %d, want run %d", m.Board, m.Algorithm, m.BlockSize, m.RunID,
					sorted[controllers-1])
			}
		}
	})
}

// controller writes one run as `fleet run` does: boards concurrently, each sweeping the series in its own order.
func controller(ctx context.Context, db *DB, seed, boards, series, repeats int) (int64, error) {
	w, err := db.BeginRun(ctx, RunInfo{Label: "many", Host: fmt.Sprintf("ci-%d", seed)})
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	errs := make([]error, boards)
	for bd := range boards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			board := fmt.Sprintf("lab%d", bd+1)
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(bd)))
			for _, s := range rng.Perm(series) {
				for r := range repeats {
					if err := w.Point(ctx, board, pt("soft", "aes-128-cbc", 16*(s+1), r, 1e6)); err != nil {
						errs[bd] = err
						return
					}
				}
			}
			errs[bd] = w.BoardFinished(ctx, board, protocol.StatusOK, "")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return w.RunID(), err
		}
	}
	return w.RunID(), w.Finish(ctx, protocol.StatusOK)
}

// TestRunWriterRetriesDeadlock: a batch whose transaction PostgreSQL aborts as a deadlock's victim is written
// again, not lost and not reported. Another session locks one latest row the batch needs, waits for the batch to
// block on it, then asks for the row the batch already holds; the batch's session detects the deadlock first
// (the other's deadlock_timeout is longer), so it is the victim.
func TestRunWriterRetriesDeadlock(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	db := openAt(t, dsn)
	db.BatchSize = 1000
	first, err := db.BeginRun(ctx, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{16, 64} {
		if err := first.Point(ctx, "a", pt("soft", "sha256", size, 0, 1e6)); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}

	other, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer otx.Rollback()
	lock := `UPDATE latest SET run_id = run_id WHERE board = 'a' AND block_size = $1`
	if _, err := otx.ExecContext(ctx, `SET LOCAL deadlock_timeout = '20s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := otx.ExecContext(ctx, lock, 64); err != nil { // the batch's second row
		t.Fatal(err)
	}

	second, err := db.BeginRun(ctx, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{16, 64} {
		if err := second.Point(ctx, "a", pt("soft", "sha256", size, 0, 2e6)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- second.Finish(ctx, protocol.StatusOK) }()
	// Wait until the batch holds row 16 and waits for row 64.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var waiting int
		if err := other.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch never waited for the locked row")
		}
	}
	if _, err := otx.ExecContext(ctx, lock, 16); err != nil { // closes the cycle; the batch is the victim
		t.Fatalf("the other session was the deadlock's victim: %v", err)
	}
	if err := otx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Finish = %v, want the deadlocked batch retried", err)
	}
	if n := countPoints(t, db, second.RunID()); n != 2 {
		t.Errorf("%d points of the retried batch stored, want 2", n)
	}
}
