package store

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// deadPID is the id of a process of this machine that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// alivePID is the id of a process of this machine that lives until the test ends.
func alivePID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// TestLeaseOfGoneProcessTakenOver: a lease whose holder is a PID of this machine's process space that no
// process has is taken at once (Replaced names it), the holder's run and unfinished boards are marked
// interrupted and its other leases go; a holder PID that is alive, of another space, or of a row without a
// space (an older fleet) is waited for.
func TestLeaseOfGoneProcessTakenOver(t *testing.T) {
	if processSpace() == "" {
		t.Skip("no PID namespace to tell processes apart on this system")
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		holderAs := func(t *testing.T, w *RunWriter, pid int, space string) {
			t.Helper()
			if _, err := db.db.ExecContext(ctx, `UPDATE leases SET pid = ?, pid_space = ? WHERE run_id = ?`,
				pid, space, w.RunID()); err != nil {
				t.Fatal(err)
			}
		}
		for _, tt := range []struct {
			name     string
			pid      int
			space    string
			takeOver bool
		}{
			{"dead pid here", deadPID(t), processSpace(), true},
			{"alive pid here", alivePID(t), processSpace(), false},
			{"dead pid of another space", deadPID(t), "other-boot/pid:[1]", false},
			{"dead pid of an older fleet's row", deadPID(t), "", false},
		} {
			t.Run(tt.name, func(t *testing.T) {
				old := beginLeaseRun(t, db, "nightly", "ci-3")
				if err := old.BoardStarted(ctx, "lab1"); err != nil {
					t.Fatal(err)
				}
				for _, b := range []string{"lab1", "lab2"} {
					if _, ok := acquire(t, old, b, time.Hour); !ok {
						t.Fatalf("setup: %s not free", b)
					}
				}
				holderAs(t, old, tt.pid, tt.space)
				next := beginLeaseRun(t, db, "desk", "ci-3")
				l, ok := acquire(t, next, "lab1", time.Hour)
				if ok != tt.takeOver {
					t.Fatalf("AcquireLease = %+v, %v; want taken %v", l, ok, tt.takeOver)
				}
				run, err := db.Run(ctx, old.RunID())
				if err != nil {
					t.Fatal(err)
				}
				leases, err := db.Leases(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !tt.takeOver {
					if l.RunID != old.RunID() || l.PID != tt.pid || run.Status != protocol.StatusRunning || len(leases) != 2 {
						t.Errorf("holder %+v, run %s, %d leases; want run %d pid %d still holding both, running",
							l, run.Status, len(leases), old.RunID(), tt.pid)
					}
					for _, b := range []string{"lab1", "lab2"} {
						if err := old.ReleaseLease(ctx, b); err != nil {
							t.Fatal(err)
						}
					}
					return
				}
				if l.Replaced == nil || l.Replaced.RunID != old.RunID() || l.Replaced.PID != tt.pid || l.RunID != next.RunID() {
					t.Errorf("lease = %+v (replaced %+v), want run %d's, replacing run %d pid %d", l, l.Replaced,
						next.RunID(), old.RunID(), tt.pid)
				}
				if run.Status != protocol.StatusInterrupted || run.Finished.IsZero() {
					t.Errorf("dead holder's run: status %s, finished %v; want interrupted, finished", run.Status, run.Finished)
				}
				brs, err := db.BoardRuns(ctx, old.RunID())
				if err != nil || len(brs) != 1 {
					t.Fatalf("BoardRuns = %d, %v; want lab1's", len(brs), err)
				}
				if brs[0].Status != protocol.StatusInterrupted || !strings.Contains(brs[0].Error, "was gone") {
					t.Errorf("dead holder's board: %s %q, want interrupted, saying its controller was gone", brs[0].Status, brs[0].Error)
				}
				if len(leases) != 1 || leases[0].RunID != next.RunID() {
					t.Errorf("leases after the take-over = %+v, want lab1's alone, run %d's", leases, next.RunID())
				}
				if err := next.ReleaseLease(ctx, "lab1"); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}
