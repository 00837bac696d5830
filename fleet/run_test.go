package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// memSink keeps what a run produces, for assertions.
type memSink struct {
	mu       sync.Mutex
	started  []string
	facts    map[string]protocol.Facts
	points   map[string][]protocol.Point
	skips    map[string][]protocol.Skip
	raws     map[string]int
	finished map[string][2]string // status, cause
	kernel   map[string]protocol.KernelHealth
}

func newMemSink() *memSink {
	return &memSink{facts: map[string]protocol.Facts{}, points: map[string][]protocol.Point{}, skips: map[string][]protocol.Skip{},
		raws: map[string]int{}, finished: map[string][2]string{}}
}

var _ Sink = (*memSink)(nil)

func (s *memSink) BoardStarted(_ context.Context, b string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = append(s.started, b)
	return nil
}
func (s *memSink) BoardFacts(_ context.Context, b string, f protocol.Facts) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.facts[b] = f
	return nil
}
func (s *memSink) Point(_ context.Context, b string, p protocol.Point) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.points[b] = append(s.points[b], p)
	return nil
}
func (s *memSink) Skip(_ context.Context, b string, k protocol.Skip) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skips[b] = append(s.skips[b], k)
	return nil
}
func (s *memSink) Raw(_ context.Context, b string, _ protocol.Raw) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raws[b]++
	return nil
}
func (s *memSink) BoardKernel(_ context.Context, b string, h protocol.KernelHealth) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kernel == nil {
		s.kernel = map[string]protocol.KernelHealth{}
	}
	s.kernel[b] = h
	return nil
}
func (s *memSink) BoardFinished(_ context.Context, b string, status protocol.Status, cause string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished[b] = [2]string{string(status), cause}
	return nil
}

// hostAgent builds the agent for this machine once per test binary.
var hostAgent = sync.OnceValues(func() (string, error) {
	t, err := TargetForArch(runtime.GOARCH)
	if err != nil {
		return "", err
	}
	return BuildAgent(context.Background(), BuildOptions{Target: t})
})

func runOptions(t *testing.T, boards ...inventory.Board) RunOptions {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	if testing.Short() {
		t.Skip("builds the agent and runs openssl")
	}
	path, err := hostAgent()
	if err != nil {
		t.Fatalf("build agent: %v", err)
	}
	return RunOptions{
		Boards: boards,
		Sweep:  inventory.Profile{Algorithms: []string{"sha256"}, Modes: []string{"cpu", "kcapi"}, Sizes: []int{64, 1024}, Seconds: 1, Repeats: 1},
		Agent:  func(context.Context, string) (string, error) { return path, nil },
	}
}

// TestRunOneBoardFailsOthersFinish: an unreachable board is failed with its cause; the local board's points are
// all there.
func TestRunOneBoardFailsOthersFinish(t *testing.T) {
	local := inventory.Board{Name: "local", Local: true}
	gone := inventory.Board{Name: "am64x", Host: "192.0.2.64"}
	opts := runOptions(t, local, gone)
	opts.Dial = func(ctx context.Context, b inventory.Board) (Transport, error) {
		// as sshtransport.Dial does, the error names the board
		return nil, fmt.Errorf("connect to %s (root@192.0.2.64:22): dial tcp 192.0.2.64:22: connect: connection refused", b.Name)
	}
	sink := newMemSink()
	outs, err := Run(context.Background(), opts, sink)
	if !errors.Is(err, ErrBoardsFailed) {
		t.Fatalf("Run error = %v, want ErrBoardsFailed", err)
	}
	if got, want := outs[0].Status, protocol.StatusOK; got != want {
		t.Errorf("local status = %q, want %q (%v)", got, want, outs[0].Err)
	}
	if got, want := outs[1].Status, protocol.StatusFailed; got != want {
		t.Errorf("am64x status = %q, want %q", got, want)
	}
	if outs[1].Err == nil || !strings.Contains(outs[1].Err.Error(), "am64x") || !strings.Contains(outs[1].Err.Error(), "refused") {
		t.Errorf("am64x cause = %v, want it to name the board and the refusal", outs[1].Err)
	}
	// sha256 in cpu mode at two sizes; kcapi either measured or skipped with a reason
	cpu := 0
	for _, p := range sink.points["local"] {
		if p.Mode == "cpu" {
			cpu++
		}
	}
	if got, want := cpu, 2; got != want {
		t.Errorf("local cpu points = %d, want %d", got, want)
	}
	if got := sink.finished["am64x"]; got[0] != string(protocol.StatusFailed) || got[1] == "" {
		t.Errorf("am64x finished = %v, want failed with a cause", got)
	}
	if got := sink.finished["local"]; got[0] != string(protocol.StatusOK) {
		t.Errorf("local finished = %v, want ok", got)
	}
	if sink.raws["local"] == 0 {
		t.Error("no raw output stored for local")
	}
}

// TestRunInterrupted: cancelling the context stops the sweep promptly and records the board as interrupted.
func TestRunInterrupted(t *testing.T) {
	opts := runOptions(t, inventory.Board{Name: "local", Local: true})
	opts.Sweep.Seconds = 3
	opts.Sweep.Sizes = []int{16, 64, 256, 1024, 8192, 16384}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	opts.Progress = ProgressFunc(func(e Event) {
		if e.Stage == StageSweep && e.Done >= 1 {
			once.Do(cancel)
		}
	})
	sink := newMemSink()
	start := time.Now()
	outs, err := Run(ctx, opts, sink)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	if got, want := outs[0].Status, protocol.StatusInterrupted; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
	if got := sink.finished["local"][0]; got != string(protocol.StatusInterrupted) {
		t.Errorf("stored status = %q, want interrupted", got)
	}
	if len(sink.points["local"]) == 0 {
		t.Error("the point measured before the interrupt was not kept")
	}
	// 12 points of 3 s were planned; stopping must not wait for them
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Run took %v after cancel; want it to stop promptly", d)
	}
}

func TestPlannedPoints(t *testing.T) {
	for _, tc := range []struct {
		plan protocol.Plan
		want int
	}{
		{protocol.Plan{Algorithms: []string{"aes-128-cbc", "sha256"}, Modes: []string{"soft", "cpu"}}, 2 * 6 * 2},
		{protocol.Plan{Algorithms: []string{"aes-128-cbc", "rsa2048"}, Modes: []string{"cpu"}, Sizes: []int{16, 64}, Repeats: 3}, (2 + 1) * 3},
	} {
		if got := plannedPoints(tc.plan); got != tc.want {
			t.Errorf("plannedPoints(%+v) = %d, want %d", tc.plan, got, tc.want)
		}
	}
}

// TestProgressTotalLeavesOutUnavailableModes: a mode the probe finds unavailable (devcrypto without /dev/crypto)
// is one skip, not slots that jump the bar ahead at the start ("37/60" as the first point); the progress starts
// at 1 and ends at its total.
func TestProgressTotalLeavesOutUnavailableModes(t *testing.T) {
	opts := runOptions(t, inventory.Board{Name: "local", Local: true})
	opts.Sweep.Modes = []string{"cpu", "devcrypto"}
	var mu sync.Mutex
	var sweeps []Event
	opts.Progress = ProgressFunc(func(e Event) {
		if e.Stage == StageSweep && e.Algorithm != "" {
			mu.Lock()
			sweeps = append(sweeps, e)
			mu.Unlock()
		}
	})
	sink := newMemSink()
	if _, err := Run(context.Background(), opts, sink); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat("/dev/crypto"); err == nil {
		t.Skip("this host has /dev/crypto: devcrypto is available here")
	}
	if len(sweeps) == 0 {
		t.Fatal("no sweep progress")
	}
	first, last := sweeps[0], sweeps[len(sweeps)-1]
	if got, want := first.Done, 1; got != want {
		t.Errorf("first progress = %d/%d, want %d/…", first.Done, first.Total, want)
	}
	if got, want := last.Total, 2; got != want {
		t.Errorf("total = %d, want %d (sha256 at two sizes in cpu; devcrypto unavailable)", got, want)
	}
	if last.Done != last.Total {
		t.Errorf("last progress = %d/%d, want it complete", last.Done, last.Total)
	}
}
