package store

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// beginLeaseRun starts a run that will ask for leases, labelled and hosted so that its holder can be recognised.
func beginLeaseRun(t *testing.T, db *DB, label, host string) *RunWriter {
	t.Helper()
	w, err := db.BeginRun(context.Background(), RunInfo{Label: label, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func acquire(t *testing.T, w *RunWriter, board string, ttl time.Duration) (protocol.Lease, bool) {
	t.Helper()
	l, ok, err := w.AcquireLease(context.Background(), board, ttl)
	if err != nil {
		t.Fatalf("run %d: AcquireLease(%s) = %v", w.RunID(), board, err)
	}
	return l, ok
}

// TestLeaseConflictNamesHolder: a board held by one run is refused to another, which learns who holds it; a
// run that does not hold it cannot release it; once released, the other run takes it.
func TestLeaseConflictNamesHolder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		a, b := beginLeaseRun(t, db, "nightly", "ci-3"), beginLeaseRun(t, db, "desk", "pc-7")
		if l, ok := acquire(t, a, "lab1", time.Hour); !ok || l.RunID != a.RunID() {
			t.Fatalf("first AcquireLease = %+v, %v; want lab1 for run %d", l, ok, a.RunID())
		}
		if _, ok := acquire(t, a, "lab2", time.Hour); !ok {
			t.Fatalf("run %d could not take a second, free board", a.RunID())
		}
		holder, ok := acquire(t, b, "lab1", time.Hour)
		if ok {
			t.Fatalf("run %d took lab1, held by run %d", b.RunID(), a.RunID())
		}
		if holder.RunID != a.RunID() || holder.Label != "nightly" || holder.Host != "ci-3" || holder.PID != os.Getpid() ||
			holder.Board != "lab1" || holder.Since.IsZero() || holder.Expired {
			t.Errorf("holder = %+v, want run %d, nightly, ci-3, pid %d, since set, not expired", holder, a.RunID(), os.Getpid())
		}
		if err := b.ReleaseLease(ctx, "lab1"); err != nil {
			t.Fatal(err)
		}
		if _, ok := acquire(t, b, "lab1", time.Hour); ok {
			t.Fatal("a release by a run that does not hold lab1 freed it")
		}
		if err := a.ReleaseLease(ctx, "lab1"); err != nil {
			t.Fatal(err)
		}
		if l, ok := acquire(t, b, "lab1", time.Hour); !ok || l.RunID != b.RunID() || l.Label != "desk" {
			t.Errorf("after the release AcquireLease = %+v, %v; want lab1 for run %d", l, ok, b.RunID())
		}
		ls, err := db.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 2 || ls[0].Board != "lab1" || ls[0].RunID != b.RunID() || ls[1].Board != "lab2" || ls[1].RunID != a.RunID() {
			t.Errorf("Leases = %+v, want lab1 for run %d, lab2 for run %d", ls, b.RunID(), a.RunID())
		}
	})
}

// TestLeaseExpires: a holder that stops renewing (a controller that died) loses the board after its time to
// live: the next run takes it, the old holder's heartbeat learns it lost the board, and its late release does not
// free the new holder's lease.
func TestLeaseExpires(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		dead, next := beginLeaseRun(t, db, "crashed", "ci-1"), beginLeaseRun(t, db, "", "ci-2")
		if _, ok := acquire(t, dead, "lab1", time.Millisecond); !ok {
			t.Fatal("first AcquireLease refused")
		}
		time.Sleep(10 * time.Millisecond) // past the time to live on a real clock too
		ls, err := db.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 1 || !ls[0].Expired {
			t.Errorf("Leases = %+v, want lab1's lease shown expired", ls)
		}
		if l, ok := acquire(t, next, "lab1", time.Hour); !ok || l.RunID != next.RunID() {
			t.Fatalf("AcquireLease of an expired lease = %+v, %v; want it taken over by run %d", l, ok, next.RunID())
		}
		if ok, err := dead.RenewLease(ctx, "lab1", time.Hour); err != nil || ok {
			t.Errorf("old holder's RenewLease = %v, %v; want false: the board was taken", ok, err)
		}
		if err := dead.ReleaseLease(ctx, "lab1"); err != nil {
			t.Fatal(err)
		}
		if holder, ok := acquire(t, dead, "lab1", time.Hour); ok || holder.RunID != next.RunID() {
			t.Errorf("after the old holder's release AcquireLease = %+v, %v; want lab1 still held by run %d", holder, ok, next.RunID())
		}
	})
}

// TestLeaseRenew: the heartbeat moves the expiry forward, and revives a lease that expired but that no other run
// took (its run never lost the board). A renewed lease is still refused to others.
func TestLeaseRenew(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		a, b := beginLeaseRun(t, db, "", "ci-1"), beginLeaseRun(t, db, "", "ci-2")
		first, ok := acquire(t, a, "lab1", time.Millisecond)
		if !ok {
			t.Fatal("AcquireLease refused")
		}
		time.Sleep(10 * time.Millisecond)
		if ok, err := a.RenewLease(ctx, "lab1", time.Hour); err != nil || !ok {
			t.Fatalf("RenewLease of an expired lease nobody took = %v, %v; want true", ok, err)
		}
		ls, err := db.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 1 || ls[0].Expired || !ls[0].Heartbeat.After(first.Heartbeat) || !ls[0].Expires.After(first.Expires) ||
			!ls[0].Since.Equal(first.Since) {
			t.Errorf("after RenewLease: %+v; want a later heartbeat and expiry, since unchanged (%v)", ls, first.Since)
		}
		if _, ok := acquire(t, b, "lab1", time.Hour); ok {
			t.Error("a renewed lease was taken by another run")
		}
		if ok, err := b.RenewLease(ctx, "lab1", time.Hour); err != nil || ok {
			t.Errorf("RenewLease by a run that does not hold lab1 = %v, %v; want false", ok, err)
		}
		if _, _, err := db.AcquireLease(ctx, protocol.Lease{Board: "lab1", RunID: 9}, 0); err == nil {
			t.Error("AcquireLease with no time to live: no error")
		}
	})
}

// TestLeaseRaceOneWinner: runs in separate handles of one file (as separate controllers) ask for one board at
// the same moment: exactly one gets it and every other is told that one holds it.
func TestLeaseRaceOneWinner(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) { testLeaseRaceOneWinner(t, be.newDSN(t)) })
}

func testLeaseRaceOneWinner(t *testing.T, dsn string) {
	const n = 8
	writers := make([]*RunWriter, n)
	for i := range writers {
		db := openAt(t, dsn)
		db.Now = nil // the real clock: every handle the same
		writers[i] = beginLeaseRun(t, db, "", "ci")
	}
	type answer struct {
		holder protocol.Lease
		ok     bool
		err    error
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			a := &answers[i]
			a.holder, a.ok, a.err = w.AcquireLease(context.Background(), "lab1", time.Hour)
		}()
	}
	close(start)
	wg.Wait()
	var winners []int64
	for _, a := range answers {
		if a.err != nil {
			t.Fatalf("AcquireLease = %v", a.err)
		}
		if a.ok {
			winners = append(winners, a.holder.RunID)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d runs got lab1 (%v), want exactly 1", len(winners), winners)
	}
	for i, a := range answers {
		if !a.ok && a.holder.RunID != winners[0] {
			t.Errorf("run %d was told run %d holds lab1, want run %d", writers[i].RunID(), a.holder.RunID, winners[0])
		}
	}
}

// TestFinishReleasesLeases: a run that ends (on an error too) holds no board, even when its controller never
// released the boards one by one.
func TestFinishReleasesLeases(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		a, b := beginLeaseRun(t, db, "", "ci-1"), beginLeaseRun(t, db, "", "ci-2")
		for _, board := range []string{"lab1", "lab2"} {
			if _, ok := acquire(t, a, board, time.Hour); !ok {
				t.Fatalf("AcquireLease(%s) refused", board)
			}
		}
		if _, ok := acquire(t, b, "lab3", time.Hour); !ok {
			t.Fatal("AcquireLease(lab3) refused")
		}
		if err := a.Finish(ctx, protocol.StatusFailed); err != nil {
			t.Fatal(err)
		}
		ls, err := db.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 1 || ls[0].Board != "lab3" || ls[0].RunID != b.RunID() {
			t.Errorf("after run %d finished, Leases = %+v; want only lab3 of run %d", a.RunID(), ls, b.RunID())
		}
	})
}

// TestLeaseServerClock: on PostgreSQL, leases are judged by the server's clock, not the controllers': a
// controller whose clock is a day slow still holds its board against one whose clock is right (with its own
// clock, its lease would have expired a day ago). SQLite is one machine's file, with one clock: DB.Now.
func TestLeaseServerClock(t *testing.T) {
	var dsn string
	for _, be := range backends {
		if be.name == "postgres" {
			dsn = be.newDSN(t)
		}
	}
	slow, right := openAt(t, dsn), openAt(t, dsn)
	slow.Now = func() time.Time { return time.Now().Add(-24 * time.Hour) }
	right.Now = time.Now
	a, b := beginLeaseRun(t, slow, "", "slow-clock"), beginLeaseRun(t, right, "", "right-clock")
	l, ok := acquire(t, a, "lab1", time.Minute)
	if !ok {
		t.Fatal("AcquireLease refused")
	}
	if d := time.Since(l.Since); d < -time.Minute || d > time.Minute {
		t.Errorf("lease since %v, %v from now: not the server's clock", l.Since, d)
	}
	if holder, ok := acquire(t, b, "lab1", time.Minute); ok || holder.RunID != a.RunID() || holder.Expired {
		t.Errorf("AcquireLease by a controller with the right clock = %+v, %v; want lab1 still held by run %d", holder, ok, a.RunID())
	}
}

// TestLocalLeasePerHost: the board local is each controller's own host, so two hosts' runs on one database
// hold their local boards at once (leases local@ci-3 and local@pc-7), while a second run on one host still
// waits for the first, told that local is held by it; renewal and release find the host's lease.
func TestLocalLeasePerHost(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db := be.open(t)
		a, b, c := beginLeaseRun(t, db, "nightly", "ci-3"), beginLeaseRun(t, db, "desk", "pc-7"), beginLeaseRun(t, db, "again", "ci-3")
		if _, ok := acquire(t, a, "local", time.Hour); !ok {
			t.Fatal("ci-3 could not take its local board")
		}
		if holder, ok := acquire(t, b, "local", time.Hour); !ok {
			t.Fatalf("pc-7 waits for ci-3's local board: held by %+v", holder)
		}
		holder, ok := acquire(t, c, "local", time.Hour)
		if ok {
			t.Fatal("a second run on ci-3 took local while the first held it")
		}
		if holder.Board != "local" || holder.RunID != a.RunID() || holder.Host != "ci-3" {
			t.Errorf("holder = %+v, want local held by run %d on ci-3", holder, a.RunID())
		}
		ls, err := db.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 2 || ls[0].Board != "local@ci-3" || ls[0].RunID != a.RunID() || ls[1].Board != "local@pc-7" || ls[1].RunID != b.RunID() {
			t.Errorf("Leases = %+v; want local@ci-3 of run %d and local@pc-7 of run %d", ls, a.RunID(), b.RunID())
		}
		if ok, err := a.RenewLease(ctx, "local", time.Hour); err != nil || !ok {
			t.Errorf("RenewLease(local) on ci-3 = %v, %v; want renewed", ok, err)
		}
		if err := a.ReleaseLease(ctx, "local"); err != nil {
			t.Fatal(err)
		}
		if _, ok := acquire(t, c, "local", time.Hour); !ok {
			t.Error("after ci-3's first run released local, its second run could not take it")
		}
	})
}
