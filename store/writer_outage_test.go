package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/protocol"
)

// TestRunWriterFailsTheRunAfterAnOutage: a write that cannot reach the database for longer than OutageRetry
// fails; when the database is back, Finish marks the run failed with the write's error as the boards' cause
// and releases the run's leases, instead of leaving it running and the board held until the lease expires.
func TestRunWriterFailsTheRunAfterAnOutage(t *testing.T) {
	ctx := context.Background()
	srv, err := pgtest.Start(ctx)
	if err != nil {
		pgtest.Skip(t, err)
	}
	t.Cleanup(func() { srv.Stop() })
	dsn, err := srv.CreateDatabase(ctx, "fleet")
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.OutageRetry = time.Second
	w, err := db.BeginRun(ctx, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := w.AcquireLease(ctx, "b", time.Hour); err != nil || !ok {
		t.Fatalf("AcquireLease = %v, %v", ok, err)
	}
	if err := w.BoardStarted(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	err = w.BoardFacts(ctx, "b", protocol.Facts{})
	if err == nil || !strings.Contains(err.Error(), "database unreachable, tried again for") {
		t.Fatalf("write with the server down = %v, want it given up after OutageRetry", err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	err = w.Finish(ctx, protocol.StatusOK)
	if err == nil || !strings.Contains(err.Error(), "the run is marked failed and its boards released") {
		t.Errorf("Finish = %v, want the earlier error and that the run was marked failed", err)
	}
	run, err := db.Run(ctx, w.RunID())
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != protocol.StatusFailed || run.Finished.IsZero() {
		t.Errorf("run %+v, want failed with an end", run)
	}
	brs, err := db.BoardRuns(ctx, w.RunID())
	if err != nil {
		t.Fatal(err)
	}
	if len(brs) != 1 || brs[0].Status != protocol.StatusFailed || !strings.Contains(brs[0].Error, "database unreachable") {
		t.Errorf("board runs %+v, want b failed with the write's error", brs)
	}
	if leases, err := db.Leases(ctx); err != nil || len(leases) != 0 {
		t.Errorf("leases %+v (%v), want none", leases, err)
	}
}
