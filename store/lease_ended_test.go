package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLeaseOfEndedRunTakenAtOnce: a lease whose holder run has ended, or is not in the database, protects
// nothing: it is taken at once, whatever machine the holder was on (another PID space here, so that its process
// cannot be judged), and ReplacedWhy says why; a holder run still running is waited for.
func TestLeaseOfEndedRunTakenAtOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		for _, tt := range []struct {
			name    string
			holder  string // SQL run on the holder's lease row and run (?: its run id)
			wantWhy string // empty: waited for
		}{
			{"finished ok", `UPDATE runs SET status = 'ok' WHERE id = ?`, "that run has ended (ok): a finished run holds nothing"},
			{"not in the database", `UPDATE leases SET run_id = 999999 WHERE run_id = ?`, "that run is not in the database"},
			{"still running", `UPDATE runs SET status = 'running' WHERE id = ?`, ""},
		} {
			t.Run(tt.name, func(t *testing.T) {
				old := beginLeaseRun(t, db, "nightly", "ci-3")
				if _, ok := acquire(t, old, "lab1", time.Hour); !ok {
					t.Fatal("setup: lab1 not free")
				}
				if _, err := db.db.ExecContext(ctx, `UPDATE leases SET pid_space = 'other-boot/pid:[1]' WHERE run_id = ?`,
					old.RunID()); err != nil {
					t.Fatal(err)
				}
				if _, err := db.db.ExecContext(ctx, tt.holder, old.RunID()); err != nil {
					t.Fatal(err)
				}
				next := beginLeaseRun(t, db, "desk", "pc-7")
				l, ok := acquire(t, next, "lab1", time.Hour)
				if tt.wantWhy == "" {
					if ok || l.RunID != old.RunID() {
						t.Errorf("AcquireLease = %+v, %v; want run %d still holding lab1", l, ok, old.RunID())
					}
					if err := old.ReleaseLease(ctx, "lab1"); err != nil {
						t.Fatal(err)
					}
					return
				}
				if !ok || l.RunID != next.RunID() || l.Replaced == nil || l.ReplacedWhy != tt.wantWhy {
					t.Fatalf("AcquireLease = %+v (replaced %+v), %v; want run %d's at once, why %q", l, l.Replaced, ok,
						next.RunID(), tt.wantWhy)
				}
				if err := next.ReleaseLease(ctx, "lab1"); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestLeaseRowOfAnotherTimeFormat: a hand-written lease row whose times are not in fleet's layout is refused
// naming the board, the run, the column and the value, and how to remove it; a hostile value is cut short.
func TestLeaseRowOfAnotherTimeFormat(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		for _, tt := range []struct{ value, want string }{
			{"2099-12-06T10:20:41Z", `expires "2099-12-06T10:20:41Z", not a time as fleet writes them`},
			{strings.Repeat("9", 5000), `expires "` + strings.Repeat("9", 60) + `"… (5000 bytes)`},
		} {
			if _, err := db.db.ExecContext(ctx, `DELETE FROM leases`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.db.ExecContext(ctx, `INSERT INTO leases (board, run_id, since, heartbeat, expires)
				VALUES ('lab1', 12, ?, ?, ?)`, formatTime(db.now()), formatTime(db.now()), tt.value); err != nil {
				t.Fatal(err)
			}
			_, err := db.Leases(ctx)
			for _, want := range []string{"lease of lab1 (run 12)", tt.want, "DELETE FROM leases WHERE board = 'lab1'"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Leases with expires of %d bytes = %v, want it to say %q", len(tt.value), err, want)
				}
			}
			if err != nil && len(err.Error()) > 600 {
				t.Errorf("error of %d bytes for a %d-byte value", len(err.Error()), len(tt.value))
			}
			w := beginLeaseRun(t, db, "", "ci-1")
			if _, _, err := w.AcquireLease(ctx, "lab1", time.Hour); err == nil || !strings.Contains(err.Error(), "lease of lab1 (run 12)") {
				t.Errorf("AcquireLease over the row = %v, want it named", err)
			}
		}
	})
}
