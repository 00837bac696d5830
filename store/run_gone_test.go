package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestGoneRuns: a run still marked running is gone when a board of it in progress has no live lease of its
// own (missing, expired, another run's, or held by a dead PID of this machine); a run that holds a live
// lease, one that holds none and has no board in progress (waiting), an import, and a finished run are not.
func TestGoneRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		started := func(t *testing.T, board string, ttl time.Duration) *RunWriter {
			t.Helper()
			w := beginLeaseRun(t, db, "nightly", "ci-3")
			if _, ok := acquire(t, w, board, ttl); !ok {
				t.Fatalf("setup: %s not free", board)
			}
			if err := w.BoardStarted(ctx, board); err != nil {
				t.Fatal(err)
			}
			return w
		}
		alive := started(t, "alive", time.Hour)
		expired := started(t, "short", time.Nanosecond)
		released := started(t, "released", time.Hour)
		if err := released.ReleaseLease(ctx, "released"); err != nil {
			t.Fatal(err)
		}
		waiting := beginLeaseRun(t, db, "nightly", "ci-3")
		finished := started(t, "done", time.Hour)
		if err := finished.BoardFinished(ctx, "done", protocol.StatusOK, ""); err != nil {
			t.Fatal(err)
		}
		if err := finished.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		want := map[int64]string{expired.RunID(): "expired", released.RunID(): "lease is gone"}
		if processSpace() != "" {
			dead := started(t, "dead", time.Hour)
			if _, err := db.db.ExecContext(ctx, `UPDATE leases SET pid = ?, pid_space = ? WHERE run_id = ?`,
				deadPID(t), processSpace(), dead.RunID()); err != nil {
				t.Fatal(err)
			}
			want[dead.RunID()] = "is gone"
		}
		// SQLite's test clock steps a second a read, and PostgreSQL's server clock runs: the short lease is past
		time.Sleep(10 * time.Millisecond)
		rs, err := db.Runs(ctx, RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, Run{ID: 999, Status: protocol.StatusRunning, Source: "imported from S00.txt"})
		got, err := db.GoneRuns(ctx, rs)
		if err != nil {
			t.Fatal(err)
		}
		for id, frag := range want {
			if !strings.Contains(got[id], frag) {
				t.Errorf("run %d: GoneRuns says %q, want it gone (%q)", id, got[id], frag)
			}
		}
		for _, w := range []*RunWriter{alive, waiting, finished} {
			if why, ok := got[w.RunID()]; ok {
				t.Errorf("run %d: GoneRuns says %q, want it not judged gone", w.RunID(), why)
			}
		}
		if len(got) != len(want) {
			t.Errorf("GoneRuns = %v, want %d runs gone", got, len(want))
		}
	})
}
