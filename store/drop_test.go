package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestDropBoards: a refused board's points, skips, board run and lease leave the run (local's lease is kept as
// local@<host>: it goes too), the other board's stay; dropping the last board drops the run. On SQLite and on
// PostgreSQL, whose foreign keys would refuse to drop a run that a lease row still names.
func TestDropBoards(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		w := beginLeaseRun(t, db, "nightly", "ci-3")
		for _, b := range []string{"am64x", "local"} {
			if err := w.BoardStarted(ctx, b); err != nil {
				t.Fatal(err)
			}
			if _, ok := acquire(t, w, b, time.Hour); !ok {
				t.Fatalf("AcquireLease(%s) refused", b)
			}
			if err := w.Point(ctx, b, pt("cpu", "sha256", 16, 0, 1e6)); err != nil {
				t.Fatal(err)
			}
			if err := w.Skip(ctx, b, protocol.Skip{Mode: "afalg", Reason: "no engine"}); err != nil {
				t.Fatal(err)
			}
			if err := w.BoardFinished(ctx, b, protocol.StatusOK, ""); err != nil {
				t.Fatal(err)
			}
		}
		gone, err := w.DropBoards(ctx, []string{"local"})
		if err != nil || gone {
			t.Fatalf("DropBoards(local) = %v, %v; want the run kept", gone, err)
		}
		ls, err := db.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 1 || ls[0].Board != "am64x" {
			t.Errorf("leases after dropping local = %+v, want am64x's alone", ls)
		}
		brs, err := db.BoardRuns(ctx, w.RunID())
		if err != nil || len(brs) != 1 || brs[0].Board != "am64x" {
			t.Errorf("board runs after dropping local = %+v, %v; want am64x alone", brs, err)
		}
		ms, err := db.Measurements(ctx, Filter{RunID: w.RunID()})
		if err != nil || len(ms) != 1 || ms[0].Board != "am64x" {
			t.Errorf("points after dropping local = %+v, %v; want am64x's one", ms, err)
		}
		if gone, err := w.DropBoards(ctx, []string{"am64x"}); err != nil || !gone {
			t.Fatalf("DropBoards(am64x) = %v, %v; want the run gone with its last board", gone, err)
		}
		if _, err := db.Run(ctx, w.RunID()); !errors.Is(err, ErrNotFound) {
			t.Errorf("run %d after its last board was dropped: %v, want ErrNotFound", w.RunID(), err)
		}
		if ls, err := db.Leases(ctx); err != nil || len(ls) != 0 {
			t.Errorf("leases after the run went = %+v, %v; want none", ls, err)
		}
	})
}
