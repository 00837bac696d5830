package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// leaseTable is an in-memory lease store shared by the runs of a test; the store's own tests cover the SQL.
type leaseTable struct {
	mu     sync.Mutex
	held   map[string]protocol.Lease
	renews int
}

func newLeaseTable() *leaseTable { return &leaseTable{held: map[string]protocol.Lease{}} }

// leaser is one run's view of a leaseTable.
type leaser struct {
	t       *leaseTable
	run     int64
	refuse  bool // RenewLease answers false: the lease was lost
	broken  bool // RenewLease fails: the database cannot be reached
	renewed chan struct{}
}

var _ Leaser = (*leaser)(nil)

func (l *leaser) AcquireLease(_ context.Context, board string, ttl time.Duration) (protocol.Lease, bool, error) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	now := time.Now()
	if h, ok := l.t.held[board]; ok && h.RunID != l.run && h.Expires.After(now) {
		return h, false, nil
	}
	h := protocol.Lease{Board: board, RunID: l.run, Label: "test", Host: "ci-3", Since: now, Heartbeat: now, Expires: now.Add(ttl)}
	l.t.held[board] = h
	return h, true, nil
}

func (l *leaser) RenewLease(_ context.Context, board string, ttl time.Duration) (bool, error) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	l.t.renews++
	if l.renewed != nil {
		select {
		case l.renewed <- struct{}{}:
		default:
		}
	}
	if l.broken {
		return false, errors.New("database unreachable")
	}
	h, ok := l.t.held[board]
	if l.refuse || !ok || h.RunID != l.run {
		return false, nil
	}
	h.Heartbeat, h.Expires = time.Now(), time.Now().Add(ttl)
	l.t.held[board] = h
	return true, nil
}

func (l *leaser) ReleaseLease(_ context.Context, board string) error {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if h, ok := l.t.held[board]; ok && h.RunID == l.run {
		delete(l.t.held, board)
	}
	return nil
}

func (t *leaseTable) holders() map[string]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]int64{}
	for b, h := range t.held {
		out[b] = h.RunID
	}
	return out
}

// errMeasured ends a board's part of a test run after its "measurement": the dial of a board that is not there.
var errMeasured = errors.New("measured")

// leaseRun is a run that measures nothing: each board's dial stands for its whole time under the lease.
func leaseRun(boards []string, l Leaser, dial func(ctx context.Context, b inventory.Board) (Transport, error)) RunOptions {
	opts := RunOptions{Concurrency: 1, Leases: l, LeaseWait: time.Minute,
		LeaseTimes: LeaseTimes{TTL: time.Second, Heartbeat: 20 * time.Millisecond, Poll: 5 * time.Millisecond}, Dial: dial}
	for _, b := range boards {
		opts.Boards = append(opts.Boards, inventory.Board{Name: b, Host: "192.0.2.1"})
	}
	return opts
}

// events records progress events.
type events struct {
	mu sync.Mutex
	ev []Event
}

func (e *events) Event(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ev = append(e.ev, ev)
}

func (e *events) msgs(stage string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.ev {
		if ev.Stage == stage {
			out = append(out, ev.Board+": "+ev.Msg)
		}
	}
	return out
}

// TestRunWaitsForLease: a board another run holds is waited for, with a line naming the holder, and measured
// once it is released; the run holds no lease when it ends.
func TestRunWaitsForLease(t *testing.T) {
	table := newLeaseTable()
	other := &leaser{t: table, run: 41}
	if _, ok, _ := other.AcquireLease(context.Background(), "lab1", time.Minute); !ok {
		t.Fatal("setup: lab1 not free")
	}
	released := make(chan time.Time, 1)
	time.AfterFunc(100*time.Millisecond, func() {
		other.ReleaseLease(context.Background(), "lab1")
		released <- time.Now()
	})
	var dialed time.Time
	ev := &events{}
	opts := leaseRun([]string{"lab1"}, &leaser{t: table, run: 42}, func(ctx context.Context, b inventory.Board) (Transport, error) {
		dialed = time.Now()
		if h := table.holders()["lab1"]; h != 42 {
			return nil, fmt.Errorf("dialed while lab1's lease is held by run %d", h)
		}
		return nil, errMeasured
	})
	opts.Progress = ev
	outs, _ := Run(context.Background(), opts, newMemSink())
	if !errors.Is(outs[0].Err, errMeasured) {
		t.Fatalf("lab1: %v, want it measured after the wait", outs[0].Err)
	}
	if r := <-released; dialed.Before(r) {
		t.Errorf("lab1 dialed at %v, before run 41 released it at %v", dialed, r)
	}
	waits := ev.msgs(StageLease)
	if len(waits) != 2 || !strings.HasPrefix(waits[0], "lab1: waiting for run 41 (test, host ci-3, since ") ||
		!strings.HasPrefix(waits[1], "lab1: leased after waiting") {
		t.Errorf("lease progress = %q, want one waiting line naming run 41 and one when leased", waits)
	}
	if h := table.holders(); len(h) != 0 {
		t.Errorf("leases held after the run: %v", h)
	}
}

// TestRunLeaseWaitLeavesPlace: one board at a time (Concurrency 1), the first board held by another run: the
// second board is measured while the first waits, instead of queueing behind it; then the first is measured.
func TestRunLeaseWaitLeavesPlace(t *testing.T) {
	table := newLeaseTable()
	other := &leaser{t: table, run: 41}
	if _, ok, _ := other.AcquireLease(context.Background(), "lab1", time.Minute); !ok {
		t.Fatal("setup: lab1 not free")
	}
	var mu sync.Mutex
	var order []string
	opts := leaseRun([]string{"lab1", "lab2"}, &leaser{t: table, run: 42}, func(ctx context.Context, b inventory.Board) (Transport, error) {
		mu.Lock()
		order = append(order, b.Name)
		mu.Unlock()
		if b.Name == "lab2" {
			other.ReleaseLease(ctx, "lab1") // the other run ends while this one measures lab2
		}
		return nil, errMeasured
	})
	opts.LeaseWait = 2 * time.Second
	outs, _ := Run(context.Background(), opts, newMemSink())
	for _, o := range outs {
		if !errors.Is(o.Err, errMeasured) {
			t.Errorf("%s: %v, want it measured", o.Board, o.Err)
		}
	}
	if strings.Join(order, ",") != "lab2,lab1" {
		t.Errorf("boards measured in the order %v, want lab2 while lab1 waited, then lab1", order)
	}
}

// TestRunLeaseWaitGivesUp: a board held for longer than LeaseWait fails with the holder named, without being
// dialed; the run's other board is measured. LeaseWait 0 does not wait at all.
func TestRunLeaseWaitGivesUp(t *testing.T) {
	for _, wait := range []time.Duration{0, 50 * time.Millisecond} {
		t.Run(wait.String(), func(t *testing.T) {
			table := newLeaseTable()
			if _, ok, _ := (&leaser{t: table, run: 41}).AcquireLease(context.Background(), "lab1", time.Minute); !ok {
				t.Fatal("setup: lab1 not free")
			}
			var dialed sync.Map
			opts := leaseRun([]string{"lab1", "lab2"}, &leaser{t: table, run: 42}, func(ctx context.Context, b inventory.Board) (Transport, error) {
				dialed.Store(b.Name, true)
				return nil, errMeasured
			})
			opts.LeaseWait = wait
			ev := &events{}
			opts.Progress = ev
			sink := newMemSink()
			start := time.Now()
			outs, err := Run(context.Background(), opts, sink)
			if !errors.Is(err, ErrBoardsFailed) {
				t.Fatalf("Run = %v, want ErrBoardsFailed", err)
			}
			var held *LeaseHeldError
			if !errors.As(outs[0].Err, &held) || !errors.Is(outs[0].Err, ErrBoardLeased) || held.Holder.RunID != 41 {
				t.Fatalf("lab1: %v, want a LeaseHeldError naming run 41", outs[0].Err)
			}
			if msg := outs[0].Err.Error(); !strings.HasPrefix(msg, "lab1 is leased by run 41 (test, host ci-3, since ") {
				t.Errorf("lab1's error = %q, want it to name the board and the holder", msg)
			}
			if outs[0].Status != protocol.StatusFailed || sink.finished["lab1"][0] != string(protocol.StatusFailed) {
				t.Errorf("lab1 status %q, stored %q; want failed", outs[0].Status, sink.finished["lab1"])
			}
			if _, ok := dialed.Load("lab1"); ok {
				t.Error("lab1 was dialed without its lease")
			}
			if !errors.Is(outs[1].Err, errMeasured) {
				t.Errorf("lab2: %v, want it measured", outs[1].Err)
			}
			if d := time.Since(start); d < wait {
				t.Errorf("Run gave up after %v, before LeaseWait %v", d, wait)
			}
			if w := ev.msgs(StageLease); (wait == 0) != (len(w) == 0) {
				t.Errorf("lease progress with LeaseWait %v = %q", wait, w)
			}
			if h := table.holders(); len(h) != 1 || h["lab1"] != 41 {
				t.Errorf("leases after the run = %v, want only run 41's on lab1", h)
			}
		})
	}
}

// TestRunLeaseHeartbeat: a held lease is renewed while the board works; when a renewal says the lease is gone,
// the board's work is stopped and it fails with ErrLeaseLost (not "interrupted").
func TestRunLeaseHeartbeat(t *testing.T) {
	table := newLeaseTable()
	l := &leaser{t: table, run: 42, renewed: make(chan struct{}, 1)}
	stopped := false
	opts := leaseRun([]string{"lab1"}, l, func(ctx context.Context, b inventory.Board) (Transport, error) {
		<-l.renewed // renewed while held
		table.mu.Lock()
		l.refuse = true // then another run takes the board
		table.mu.Unlock()
		select {
		case <-ctx.Done():
			stopped = true
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, errors.New("board's work not stopped when its lease was lost")
		}
	})
	outs, _ := Run(context.Background(), opts, newMemSink())
	if !stopped {
		t.Error("lab1's work was not stopped when its lease was lost")
	}
	if !errors.Is(outs[0].Err, ErrLeaseLost) || outs[0].Status != protocol.StatusFailed {
		t.Errorf("lab1: %s, %v; want failed with ErrLeaseLost", outs[0].Status, outs[0].Err)
	}
}

// TestRunLeaseUnrenewable: when no renewal succeeds for a whole time to live (the database cannot be reached),
// another run may take the board: its work is stopped with ErrLeaseLost, each failed renewal logged.
func TestRunLeaseUnrenewable(t *testing.T) {
	table := newLeaseTable()
	l := &leaser{t: table, run: 42, broken: true}
	var logged []string
	var mu sync.Mutex
	opts := leaseRun([]string{"lab1"}, l, func(ctx context.Context, b inventory.Board) (Transport, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, errors.New("board's work not stopped when its lease could not be renewed")
		}
	})
	opts.LeaseTimes.TTL = 200 * time.Millisecond
	opts.Logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	start := time.Now()
	outs, _ := Run(context.Background(), opts, newMemSink())
	if !errors.Is(outs[0].Err, ErrLeaseLost) || !strings.Contains(outs[0].Err.Error(), "database unreachable") {
		t.Errorf("lab1: %v, want ErrLeaseLost with the renewal's error", outs[0].Err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("lab1 stopped %v after its last renewal, want about its time to live (200ms)", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) == 0 || !strings.Contains(logged[0], "lab1: renew lease: database unreachable") {
		t.Errorf("failed renewals logged as %q", logged)
	}
}

// TestRunInterruptReleasesLease: Ctrl-C while a board works gives its lease back at once.
func TestRunInterruptReleasesLease(t *testing.T) {
	table := newLeaseTable()
	ctx, cancel := context.WithCancel(context.Background())
	opts := leaseRun([]string{"lab1"}, &leaser{t: table, run: 42}, func(ctx context.Context, b inventory.Board) (Transport, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	outs, err := Run(ctx, opts, newMemSink())
	if !errors.Is(err, context.Canceled) || outs[0].Status != protocol.StatusInterrupted {
		t.Errorf("Run = %v, lab1 %s; want interrupted", err, outs[0].Status)
	}
	if h := table.holders(); len(h) != 0 {
		t.Errorf("leases held after the interrupted run: %v", h)
	}
}

// TestRunLeasesNoDeadlock: two runs wanting {a, b} and {b, a}, one board at a time each, both finish: a run
// holds a board only while measuring it and never waits for one while holding another. No board is ever
// worked on by both at once.
func TestRunLeasesNoDeadlock(t *testing.T) {
	table := newLeaseTable()
	var mu sync.Mutex
	busy := map[string]int64{}
	var overlaps []string
	dial := func(run int64) func(ctx context.Context, b inventory.Board) (Transport, error) {
		return func(ctx context.Context, b inventory.Board) (Transport, error) {
			mu.Lock()
			if other, ok := busy[b.Name]; ok {
				overlaps = append(overlaps, fmt.Sprintf("%s: runs %d and %d", b.Name, other, run))
			}
			busy[b.Name] = run
			mu.Unlock()
			time.Sleep(30 * time.Millisecond)
			mu.Lock()
			delete(busy, b.Name)
			mu.Unlock()
			return nil, errMeasured
		}
	}
	done := make(chan []BoardOutcome, 2)
	for run, boards := range map[int64][]string{1: {"a", "b"}, 2: {"b", "a"}} {
		go func() {
			outs, _ := Run(context.Background(), leaseRun(boards, &leaser{t: table, run: run}, dial(run)), newMemSink())
			done <- outs
		}()
	}
	for range 2 {
		select {
		case outs := <-done:
			for _, o := range outs {
				if !errors.Is(o.Err, errMeasured) {
					t.Errorf("%s: %v, want it measured", o.Board, o.Err)
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatal("two runs wanting {a,b} and {b,a} did not finish: deadlock")
		}
	}
	if len(overlaps) > 0 {
		t.Errorf("boards worked on by two runs at once: %v", overlaps)
	}
}

// TestClockTimeNamesTheDayWhenNotToday: a lease taken at 23:06 for an hour expires tomorrow, and says so.
func TestClockTimeNamesTheDayWhenNotToday(t *testing.T) {
	now := time.Now()
	if got := clockTime(now); len(got) != len("15:04:05") {
		t.Errorf("today: %q, want a clock time alone", got)
	}
	tomorrow := now.Add(24 * time.Hour)
	if got, want := clockTime(tomorrow), tomorrow.Local().Format("2006-01-02 15:04:05"); got != want {
		t.Errorf("tomorrow: %q, want %q", got, want)
	}
}
