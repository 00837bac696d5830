package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestOpenReadOnlyNeverWrites: the handle refuses writes, sees the data, and leaves the database alone (SQLite:
// the file's bytes; PostgreSQL: a read-only session); a missing database is not created, and a newer or older
// schema is refused.
func TestOpenReadOnlyNeverWrites(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		h := buildHistory(t, b)
		h.db.Close()
		var before []byte
		if b.name == "sqlite" {
			var err error
			if before, err = os.ReadFile(h.dsn); err != nil {
				t.Fatal(err)
			}
		}
		db, err := OpenReadOnly(ctx, h.dsn)
		if err != nil {
			t.Fatal(err)
		}
		if runs, err := db.Runs(ctx, RunFilter{}); err != nil || len(runs) != 5 {
			t.Errorf("Runs = %d runs, %v; want 5", len(runs), err)
		}
		if _, err := db.db.ExecContext(ctx, `DELETE FROM runs`); err == nil {
			t.Error("DELETE through a read-only handle succeeded")
		}
		if _, err := db.BeginRun(ctx, RunInfo{}); !errors.Is(err, ErrReadOnly) {
			t.Errorf("BeginRun through a read-only handle = %v, want ErrReadOnly", err)
		}
		db.Close()
		if b.name == "sqlite" {
			if after, _ := os.ReadFile(h.dsn); !reflect.DeepEqual(before, after) {
				t.Error("the database file changed under a read-only handle")
			}
		} else if n := countRows(t, openAt(t, h.dsn), "runs"); n != 5 {
			t.Errorf("%d runs after writes through a read-only handle, want 5", n)
		}

		missing := filepath.Join(t.TempDir(), "none.db")
		if b.name == "postgres" {
			missing = strings.Replace(h.dsn, "/t", "/none_", 1) // same server, a database nobody created
		}
		if _, err := OpenReadOnly(ctx, missing); !errors.Is(err, ErrCannotOpen) {
			t.Errorf("OpenReadOnly(missing) = %v, want ErrCannotOpen", err)
		}
		if b.name == "sqlite" {
			if _, err := os.Stat(missing); err == nil {
				t.Error("OpenReadOnly created the missing file")
			}
		}

		for _, tc := range []struct {
			name, stmt string
			want       error
		}{
			{"newer", newerMigration(99), ErrNewerSchema},
			{"older", `DELETE FROM schema_migrations WHERE version = 2`, ErrOlderSchema},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := b.newDSN(t)
				seed(t, p)
				w := openAt(t, p)
				if _, err := w.db.ExecContext(ctx, tc.stmt); err != nil {
					t.Fatal(err)
				}
				w.Close()
				if db, err := OpenReadOnly(ctx, p); !errors.Is(err, tc.want) {
					if db != nil {
						db.Close()
					}
					t.Errorf("OpenReadOnly = %v, want %v", err, tc.want)
				}
			})
		}
	})
}

func TestRunFiltersAndPaging(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		h := buildHistory(t, b)
		ids := func(f RunFilter) []int64 {
			t.Helper()
			runs, err := h.db.Runs(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			out := []int64{}
			for _, r := range runs {
				out = append(out, r.ID)
			}
			n, err := h.db.CountRuns(ctx, RunFilter{Label: f.Label, Board: f.Board, Status: f.Status, ID: f.ID})
			if err != nil {
				t.Fatal(err)
			}
			if f.Limit == 0 && f.Offset == 0 && n != len(out) {
				t.Errorf("CountRuns(%+v) = %d, Runs gave %d", f, n, len(out))
			}
			return out
		}
		for _, tc := range []struct {
			name string
			f    RunFilter
			want []int64
		}{
			{"all, newest first", RunFilter{}, []int64{h.r5, h.r3, h.r2, h.r1, h.r4}},
			{"board b", RunFilter{Board: "b"}, []int64{h.r3, h.r1}},
			{"status ok", RunFilter{Status: protocol.StatusOK}, []int64{h.r2, h.r1}},
			{"label and board", RunFilter{Label: "nightly", Board: "c"}, []int64{h.r5}},
			{"one id", RunFilter{ID: h.r2}, []int64{h.r2}},
			{"page 2 of 2", RunFilter{Limit: 2, Offset: 2}, []int64{h.r2, h.r1}},
			{"past the end", RunFilter{Limit: 2, Offset: 10}, []int64{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := ids(tc.f); !reflect.DeepEqual(got, tc.want) {
					t.Errorf("Runs(%+v) = %v, want %v", tc.f, got, tc.want)
				}
			})
		}
		if _, err := h.db.Run(ctx, 999); !errors.Is(err, ErrNotFound) {
			t.Errorf("Run(999) = %v, want ErrNotFound", err)
		}
	})
}

// TestHistoryPageIsBounded: pages of a series' runs newest first, each oldest first inside, with More.
func TestHistoryPageIsBounded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		h := buildHistory(t, b)
		k := SeriesKey{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16}
		all, err := h.db.History(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := throughputs(all), []float64{10, 100, 110, 120, 130}; !reflect.DeepEqual(got, want) {
			t.Fatalf("History = %v, want %v", got, want)
		}
		for _, tc := range []struct {
			offset, limit int
			want          []float64
			more          bool
		}{
			{0, 1, []float64{120, 130}, true},
			{0, 2, []float64{100, 110, 120, 130}, true},
			{1, 2, []float64{10, 100, 110}, false},
			{0, 3, []float64{10, 100, 110, 120, 130}, false},
			{3, 3, []float64{}, false},
		} {
			ms, more, err := h.db.HistoryPage(ctx, k, tc.offset, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := throughputs(ms); !reflect.DeepEqual(got, tc.want) || more != tc.more {
				t.Errorf("HistoryPage(%d, %d) = %v, more %v; want %v, more %v", tc.offset, tc.limit, got, more, tc.want, tc.more)
			}
		}
		if _, _, err := h.db.HistoryPage(ctx, k, 0, 100_000); err == nil {
			t.Error("HistoryPage with limit 100000 succeeded; want an error (at most 500)")
		}
		runs, boards, err := h.db.SeriesRuns(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 3 || runs[0].ID != h.r4 || runs[1].ToolVersion != "v1" {
			t.Errorf("SeriesRuns runs = %+v, want r4, r1 (tool v1), r2", runs)
		}
		if len(boards) != 2 || boards[0].Facts.Kernel != "6.1" || boards[1].Facts.Kernel != "6.6" {
			t.Errorf("SeriesRuns boards = %+v, want the facts of a in r1 (6.1) and r2 (6.6)", boards)
		}
	})
}

// TestOpenReadOnlySeesLiveRun: a reader opened before a run starts sees its points as the writer commits them,
// which is what lets the dashboard follow a run in progress.
func TestOpenReadOnlySeesLiveRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) { testOpenReadOnlySeesLiveRun(t, b.newDSN(t)) })
}

func testOpenReadOnlySeesLiveRun(t *testing.T, path string) {
	ctx := context.Background()
	seed(t, path)
	w := openAt(t, path)
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	before, err := ro.CountRuns(ctx, RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	rw, err := w.BeginRun(ctx, RunInfo{Label: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(rw.BoardStarted(ctx, "a"), rw.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1)),
		rw.BoardFinished(ctx, "a", protocol.StatusOK, "")); err != nil {
		t.Fatal(err)
	}
	runs, err := ro.Runs(ctx, RunFilter{Label: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Points != 1 || runs[0].Status != protocol.StatusRunning {
		t.Errorf("reader sees %+v (had %d runs before), want the live run with 1 point, running", runs, before)
	}
	if err := rw.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
}
