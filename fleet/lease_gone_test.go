package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// goneLeaser is a leaser whose table's holder is a process that is gone: it hands the board over at once with
// Replaced set, as store does for a dead PID of this machine, and why as its ReplacedWhy (store's words for
// an ended run; empty for a store that gives none).
type goneLeaser struct {
	*leaser
	why string
}

func (l goneLeaser) AcquireLease(ctx context.Context, board string, ttl time.Duration) (protocol.Lease, bool, error) {
	l.t.mu.Lock()
	h, held := l.t.held[board]
	l.t.mu.Unlock()
	got, ok, err := l.leaser.AcquireLease(ctx, board, ttl)
	if err != nil || ok || !held {
		return got, ok, err
	}
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	now := time.Now()
	mine := protocol.Lease{Board: board, RunID: l.run, Since: now, Heartbeat: now, Expires: now.Add(ttl), Replaced: &h,
		ReplacedWhy: l.why}
	l.t.held[board] = mine
	return mine, true, nil
}

// TestRunTakesLeaseOfGoneHolder: a board whose holder's process is gone, or whose run has ended, is taken at
// once, with a line saying so that names the old holder and why (the store's words, or a gone process when it
// gives none), and measured without waiting.
func TestRunTakesLeaseOfGoneHolder(t *testing.T) {
	for _, tc := range []struct{ why, want string }{
		{"", "its process is gone; that run is marked interrupted"},
		{"that run has ended (ok): a finished run holds nothing", "that run has ended (ok): a finished run holds nothing"},
	} {
		t.Run(tc.want, func(t *testing.T) { testRunTakesLeaseOfGoneHolder(t, tc.why, tc.want) })
	}
}

func testRunTakesLeaseOfGoneHolder(t *testing.T, why, want string) {
	table := newLeaseTable()
	dead := &leaser{t: table, run: 41}
	if _, ok, _ := dead.AcquireLease(context.Background(), "lab1", time.Hour); !ok {
		t.Fatal("setup: lab1 not free")
	}
	table.mu.Lock()
	h := table.held["lab1"]
	h.PID = 4242
	table.held["lab1"] = h
	table.mu.Unlock()
	ev := &events{}
	opts := leaseRun([]string{"lab1"}, goneLeaser{&leaser{t: table, run: 42}, why}, func(ctx context.Context, b inventory.Board) (Transport, error) {
		return nil, errMeasured
	})
	opts.Progress = ev
	start := time.Now()
	outs, _ := Run(context.Background(), opts, newMemSink())
	if !errors.Is(outs[0].Err, errMeasured) {
		t.Fatalf("lab1: %v, want it measured", outs[0].Err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v: waited for a holder that is gone", d)
	}
	msgs := ev.msgs(StageLease)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "took the lease at once from run 41 (test, host ci-3 pid 4242") ||
		!strings.HasSuffix(msgs[0], ": "+want) {
		t.Errorf("lease progress = %q, want one line saying the lease of run 41 (pid 4242) was taken over: %s", msgs, want)
	}
}
