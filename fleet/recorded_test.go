package fleet

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// recordIn begins runs in a fresh SQLite store, as the CLI's recordOptions does.
func recordIn(t *testing.T, label string) (*store.DB, func(context.Context) (RunRecord, error)) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fleet.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, func(ctx context.Context) (RunRecord, error) {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: label, Host: "test"})
		if err != nil {
			return nil, err
		}
		return w, nil
	}
}

// checkStatus checks run's status, as RunRecorded returned it and as the store keeps it, and returns the run's row.
func checkStatus(t *testing.T, db *store.DB, run RecordedRun, want protocol.Status) store.Run {
	t.Helper()
	if run.Status != want {
		t.Errorf("status = %q, want %q", run.Status, want)
	}
	stored, err := db.Run(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status != want {
		t.Errorf("stored status = %q, want %q", stored.Status, want)
	}
	return stored
}

// TestRunRecordedInterrupted: a run cancelled mid-sweep is stored as interrupted, with the point it measured,
// though its context is gone by the time it finishes; it holds no lease afterwards.
func TestRunRecordedInterrupted(t *testing.T) {
	ro := runOptions(t, inventory.Board{Name: "local", Local: true})
	ro.Sweep.Seconds = 3
	ro.Sweep.Sizes = []int{16, 64, 256, 1024, 8192, 16384}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	ro.Progress = ProgressFunc(func(e Event) {
		if e.Stage == StageSweep && e.Done >= 1 {
			once.Do(cancel)
		}
	})
	db, begin := recordIn(t, "nightly")
	run, err := RunRecorded(ctx, RecordOptions{RunOptions: ro, Begin: begin})
	if err != nil {
		t.Fatalf("RunRecorded: %v", err)
	}
	if !errors.Is(run.Err, context.Canceled) {
		t.Errorf("run error = %v, want context.Canceled", run.Err)
	}
	stored := checkStatus(t, db, run, protocol.StatusInterrupted)
	if stored.Finished.IsZero() {
		t.Error("the interrupted run has no finished time: it was not finished")
	}
	if stored.Points == 0 {
		t.Error("the point measured before the interrupt was not stored")
	}
	if leases, err := db.Leases(context.Background()); err != nil || len(leases) != 0 {
		t.Errorf("leases after the run = %v (%v), want none", leases, err)
	}
}

// TestRunRecordedLeasesThroughRecord: the boards are leased through the run's own record, so a board another
// run holds fails this run (not waiting, with LeaseWait 0) and the other run keeps it.
func TestRunRecordedLeasesThroughRecord(t *testing.T) {
	db, begin := recordIn(t, "")
	other, err := db.BeginRun(context.Background(), store.RunInfo{Label: "other", Host: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := other.AcquireLease(context.Background(), "local", DefaultLeaseTTL); err != nil || !ok {
		t.Fatalf("the other run's lease: ok %v, %v", ok, err)
	}
	ro := RunOptions{Boards: []inventory.Board{{Name: "local", Local: true}},
		Sweep: inventory.Profile{Algorithms: []string{"sha256"}, Modes: []string{"cpu"}, Sizes: []int{64}, Seconds: 1, Repeats: 1}}
	run, err := RunRecorded(context.Background(), RecordOptions{RunOptions: ro, Begin: begin})
	if err != nil {
		t.Fatalf("RunRecorded: %v", err)
	}
	var held *LeaseHeldError
	if len(run.Outcomes) != 1 || !errors.As(run.Outcomes[0].Err, &held) {
		t.Fatalf("outcomes = %+v, want local failed with a *LeaseHeldError", run.Outcomes)
	}
	checkStatus(t, db, run, protocol.StatusFailed)
	leases, err := db.Leases(context.Background())
	if err != nil || len(leases) != 1 || leases[0].RunID != other.RunID() {
		t.Errorf("leases after the run = %+v (%v), want the other run's alone", leases, err)
	}
}

// TestRunRecordedBeginFails: a record that cannot begin is the error, and nothing is measured.
func TestRunRecordedBeginFails(t *testing.T) {
	_, begin := recordIn(t, "two\nlines")
	measured := false
	ro := RunOptions{Boards: []inventory.Board{{Name: "local", Local: true}},
		Progress: ProgressFunc(func(Event) { measured = true })}
	if _, err := RunRecorded(context.Background(), RecordOptions{RunOptions: ro, Begin: begin}); err == nil {
		t.Fatal("RunRecorded with a refused label: no error")
	}
	if measured {
		t.Error("a run whose record could not begin measured a board")
	}
}
