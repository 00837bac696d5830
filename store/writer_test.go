package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// sink is fleet.Sink's method set, repeated here because store must not import fleet.
type sink interface {
	BoardStarted(ctx context.Context, board string) error
	BoardFacts(ctx context.Context, board string, facts protocol.Facts) error
	Point(ctx context.Context, board string, p protocol.Point) error
	Skip(ctx context.Context, board string, s protocol.Skip) error
	Raw(ctx context.Context, board string, r protocol.Raw) error
	BoardFinished(ctx context.Context, board string, status protocol.Status, cause string) error
}

var _ sink = (*RunWriter)(nil)

func TestRunWriterCommitsInBatches(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		db.BatchSize, db.BatchDelay = 3, time.Hour
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name   string
			do     func() error
			stored int
		}{
			{"first point waits", func() error { return w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1e6)) }, 0},
			{"second point waits", func() error { return w.Point(ctx, "b", pt("cpu", "aes-128-cbc", 16, 0, 2e6)) }, 0},
			{"third point fills the batch", func() error { return w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 64, 0, 3e6)) }, 3},
			{"skips and raws do not fill it", func() error { return w.Skip(ctx, "a", protocol.Skip{Mode: "afalg", Reason: "no"}) }, 3},
			{"fourth point waits", func() error { return w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 256, 0, 4e6)) }, 3},
			{"board finished commits", func() error { return w.BoardFinished(ctx, "a", "ok", "") }, 4},
			{"fifth point waits", func() error { return w.Point(ctx, "b", pt("cpu", "aes-128-cbc", 64, 0, 5e6)) }, 4},
			{"finish commits", func() error { return w.Finish(ctx, protocol.StatusOK) }, 5},
		}
		for _, s := range steps {
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if got := countPoints(t, db, w.RunID()); got != s.stored {
				t.Errorf("%s: %d points stored, want %d", s.name, got, s.stored)
			}
		}
		brs, err := db.BoardRuns(ctx, w.RunID())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprintln(len(brs), brs[0].Status, brs[1].Status, len(brs[0].Skips)), "2 ok failed 1\n"; got != want {
			t.Errorf("boards, statuses, skips = %q, want %q (board b never finished)", got, want)
		}
	})
}

func TestRunWriterCommitsAfterDelay(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		db.BatchSize, db.BatchDelay = 1000, 20*time.Millisecond
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Point(ctx, "a", pt("cpu", "sha256", 64, 0, 1e6)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for countPoints(t, db, w.RunID()) != 1 {
			if time.Now().After(deadline) {
				t.Fatal("a lone point was not committed after the batch delay")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRunWriterRefuses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		nan := pt("cpu", "aes-128-cbc", 16, 0, 1e6)
		nan.BytesPerSec = math.NaN()
		tests := []struct {
			name string
			do   func() error
		}{
			{"NaN point", func() error { return w.Point(ctx, "a", nan) }},
			{"point without mode", func() error { return w.Point(ctx, "a", protocol.Point{Algorithm: "x"}) }},
			{"empty board", func() error { return w.BoardStarted(ctx, "") }},
			{"point of empty board", func() error { return w.Point(ctx, "", pt("cpu", "sha256", 64, 0, 1)) }},
			{"board finished without status", func() error { return w.BoardFinished(ctx, "a", "", "") }},
			{"run finished as running", func() error { return w.Finish(ctx, protocol.StatusRunning) }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if err := tt.do(); err == nil {
					t.Errorf("%s: no error", tt.name)
				}
			})
		}
		// a refused point spoils nothing: the writer goes on
		if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1e6)); err != nil {
			t.Fatalf("Point after a refused one = %v", err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		if got := countPoints(t, db, w.RunID()); got != 1 {
			t.Errorf("%d points stored, want 1", got)
		}
		if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 1, 1e6)); !errors.Is(err, ErrRunFinished) {
			t.Errorf("Point after Finish = %v, want ErrRunFinished", err)
		}
	})
}

// A cancelled context (Ctrl-C) must not lose what was measured: the interrupted run is still stored.
func TestRunWriterStoresAfterCancel(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		db.BatchDelay = time.Hour
		ctx, cancel := context.WithCancel(context.Background())
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1e6)); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := w.BoardFinished(ctx, "a", protocol.StatusInterrupted, "interrupted"); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusInterrupted); err != nil {
			t.Fatal(err)
		}
		runs, err := db.Runs(context.Background(), RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprintln(runs[0].Status, runs[0].Points), "interrupted 1\n"; got != want {
			t.Errorf("run status, points = %s, want %s", got, want)
		}
	})
}

func TestRunWriterConcurrentBoards(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		db.BatchSize = 7
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		const boards, points = 8, 100
		var wg sync.WaitGroup
		errs := make(chan error, boards)
		for b := range boards {
			wg.Add(1)
			go func() {
				defer wg.Done()
				board := fmt.Sprintf("board%d", b)
				errs <- func() error {
					if err := w.BoardStarted(ctx, board); err != nil {
						return err
					}
					if err := w.BoardFacts(ctx, board, protocol.Facts{Hostname: board}); err != nil {
						return err
					}
					for i := range points {
						if err := w.Raw(ctx, board, protocol.Raw{ID: i, Command: []string{"openssl", "speed"}}); err != nil {
							return err
						}
						if err := w.Point(ctx, board, pt("cpu", "aes-128-cbc", 16<<(i%5), i/5, float64(i))); err != nil {
							return err
						}
					}
					return w.BoardFinished(ctx, board, "ok", "")
				}()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		if got, want := countPoints(t, db, w.RunID()), boards*points; got != want {
			t.Errorf("%d points stored, want %d", got, want)
		}
		brs, err := db.BoardRuns(ctx, w.RunID())
		if err != nil {
			t.Fatal(err)
		}
		for _, br := range brs {
			if br.Points != points || br.Status != "ok" || br.Facts == nil || br.Facts.Hostname != br.Board {
				t.Errorf("board %s: points %d, status %s, facts %+v", br.Board, br.Points, br.Status, br.Facts)
			}
		}
	})
}

// Two handles on one file behave like two fleet processes: with immediate transactions and busy_timeout,
// neither sees "database is locked".
func TestTwoWritersOneFile(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		path := b.newDSN(t)
		dbs := []*DB{openAt(t, path), openAt(t, path)}
		const boards, points = 3, 150
		var wg sync.WaitGroup
		errs := make(chan error, len(dbs)*boards)
		var runs []int64
		for _, db := range dbs {
			db.BatchSize = 5
			w, err := db.BeginRun(ctx, RunInfo{Label: "concurrent"})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, w.RunID())
			for b := range boards {
				wg.Add(1)
				go func() {
					defer wg.Done()
					board := fmt.Sprintf("b%d", b)
					for i := range points {
						if err := w.Point(ctx, board, pt("soft", "sha256", 64, i, 1e6)); err != nil {
							errs <- err
							return
						}
					}
					errs <- w.BoardFinished(ctx, board, "ok", "")
				}()
			}
			defer func() {
				wg.Wait()
				if err := w.Finish(ctx, protocol.StatusOK); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("concurrent write: %v", err)
			}
		}
		for _, id := range runs {
			if got, want := countPoints(t, dbs[0], id), boards*points; got != want {
				t.Errorf("run %d: %d points, want %d", id, got, want)
			}
		}
	})
}
