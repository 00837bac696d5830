package store

import (
	"context"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestFinishLongAfterTheInterrupt: a run's final writes get their grace from when they start, not from the
// interrupt. Boards that took longer than FinalWriteGrace to stop after Ctrl-C (a push cut over a slow link on a
// busy machine, e2e TestInterruptDuringPush) left the run "running" in a healthy database: its writes had a
// context the interrupt's clock had ended.
func TestFinishLongAfterTheInterrupt(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		ctx, cancel := context.WithCancel(context.Background())
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.BoardStarted(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		cancel()
		time.Sleep(FinalWriteGrace + time.Second) // the boards stopping
		final := context.WithoutCancel(ctx)
		if err := w.Point(final, "a", pt("cpu", "aes-128-cbc", 16, 0, 1e6)); err != nil {
			t.Fatalf("a point after the interrupt: %v", err)
		}
		if err := w.BoardFinished(final, "a", protocol.StatusInterrupted, "interrupted"); err != nil {
			t.Fatalf("board finished after the interrupt: %v", err)
		}
		if err := w.Finish(final, protocol.StatusInterrupted); err != nil {
			t.Fatalf("finish %v after the interrupt: %v", FinalWriteGrace+time.Second, err)
		}
		run, err := db.Run(context.Background(), w.RunID())
		if err != nil || run.Status != protocol.StatusInterrupted || run.Points != 1 {
			t.Errorf("run = %+v, %v; want interrupted with its point", run, err)
		}
	})
}
