package fleet

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// TestETA: the time left is the points not yet completed × (the plan's seconds + the overhead), the overhead
// assumed until a point completes and measured after, less what the point in flight has run (at most one
// point's worth); never negative.
func TestETA(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tests := []struct {
		name  string
		steps func(e *ETA)
		total int
		now   float64
		want  time.Duration
	}{
		{"planned, nothing begun: the plan and the assumed overhead", func(*ETA) {}, 24, 0, 24 * 1040 * time.Millisecond},
		{"first point in flight for 0.5 s", func(e *ETA) { e.Begin(at(0)) }, 24, 0.5, 24*1040*time.Millisecond - 500*time.Millisecond},
		{"in flight longer than a point: one point's credit at most", func(e *ETA) { e.Begin(at(0)) }, 24, 5, 23 * 1040 * time.Millisecond},
		// 4 points took 6 s: 1.5 s each, so 0.5 s of overhead measured replaces the assumed 0.04 s
		{"overhead measured", func(e *ETA) { e.Begin(at(0)); e.Completed(4, at(6)) }, 24, 6, 20 * 1500 * time.Millisecond},
		{"overhead measured, next point half done", func(e *ETA) { e.Begin(at(0)); e.Completed(4, at(6)) }, 24, 6.75, 20*1500*time.Millisecond - 750*time.Millisecond},
		// points faster than planned (openssl's timer cut them short): the overhead is 0, not negative
		{"faster than planned", func(e *ETA) { e.Begin(at(0)); e.Completed(10, at(8)) }, 20, 8, 10 * time.Second},
		{"a stale count changes nothing", func(e *ETA) { e.Begin(at(0)); e.Completed(4, at(6)); e.Completed(3, at(7)) }, 24, 6, 20 * 1500 * time.Millisecond},
		{"all done", func(e *ETA) { e.Begin(at(0)); e.Completed(24, at(25)) }, 24, 25, 0},
		{"nothing planned", func(*ETA) {}, 0, 0, 0},
		{"more done than planned (kcapi:all)", func(e *ETA) { e.Completed(30, at(3)) }, 24, 3, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := ETA{PerPoint: time.Second, Overhead: DefaultPointOverhead}
			tc.steps(&e)
			if got := e.Left(tc.total, at(tc.now)); got != tc.want {
				t.Errorf("Left(%d) = %v, want %v", tc.total, got, tc.want)
			}
		})
	}
}

// TestPhase: every stage of a board's part of a run has the word the progress shows for it.
func TestPhase(t *testing.T) {
	for stage, want := range map[string]string{StageLease: "waiting for the lease", StageConnect: "connecting",
		StageDeploy: "deploying", StageProbe: "probing", StageVerify: "verifying", StageMeasure: "measuring",
		StageSweep: "measuring"} {
		if got := Phase(stage); got != want {
			t.Errorf("Phase(%q) = %q, want %q", stage, got, want)
		}
	}
}

// TestProgressPhases: a real sweep on the local board goes through its phases in order, each named by its own
// event: the sweep planned, each path verified (mode and algorithm, with the verdict), then each point announced
// as it begins (measure) before it is stored (sweep); before this, the verification had no event and the
// progress still showed the deploy's text.
func TestProgressPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent and runs openssl")
	}
	opts := runOptions(t, inventory.Board{Name: "local", Local: true})
	opts.Sweep.Modes, opts.Sweep.Seconds = []string{"soft", "cpu"}, 0.2
	var mu sync.Mutex
	var stages []Event
	opts.Progress = ProgressFunc(func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		stages = append(stages, e)
	})
	if _, err := Run(context.Background(), opts, newMemSink()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	at := map[string]int{} // the first event of each kind, and the last verification
	verified, begun := 0, 0
	for i, e := range stages {
		kind := e.Stage
		switch {
		case e.Stage == StageSweep && e.Algorithm == "":
			kind = "planned"
		case e.Stage == StageSweep:
			kind = "point"
			if begun < e.Done {
				t.Errorf("point %d/%d stored before it was announced (%d begun)", e.Done, e.Total, begun)
			}
		case e.Stage == StageVerify:
			verified++
			at["last verify"] = i
			if e.Mode == "" || e.Algorithm == "" || e.Msg != protocol.VerificationOK {
				t.Errorf("verify event %+v: want its mode, algorithm and verdict ok", e)
			}
		case e.Stage == StageMeasure:
			begun++
			if e.Algorithm == "" || e.Size == 0 {
				t.Errorf("measure event %+v: want the point's algorithm and size", e)
			}
		}
		if _, ok := at[kind]; !ok {
			at[kind] = i
		}
	}
	for _, pair := range [][2]string{{StageConnect, StageDeploy}, {StageDeploy, StageProbe}, {StageProbe, "planned"},
		{"planned", StageVerify}, {"last verify", StageMeasure}, {StageMeasure, "point"}, {"point", StageDone}} {
		if i, j := at[pair[0]], at[pair[1]]; i >= j {
			t.Errorf("the first %s is event %d, the first %s %d: want %s first", pair[1], j, pair[0], i, pair[0])
		}
	}
	if verified != 2 || begun != 4 {
		t.Errorf("%d paths verified and %d points begun, want 2 (soft and cpu sha256) and 4", verified, begun)
	}
}
