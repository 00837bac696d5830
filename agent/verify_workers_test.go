package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestRunConcurrency: the pool every concurrency check uses merges the workers' outputs, keeps the first four
// errors, flags a worker's own timeout, and with a hang bound ends timed out, naming the workers still out,
// without waiting for them.
func TestRunConcurrency(t *testing.T) {
	t.Run("outputs and errors", func(t *testing.T) {
		c := &protocol.VerifyConcurrency{}
		runConcurrency(context.Background(), c, 6, 20*time.Millisecond, 0, nil,
			func(w int, more func() bool, mine *distinctOutputs) ([]string, bool) {
				for i := 0; i < 3 && more(); i++ {
					mine.add([]byte("same"))
				}
				if w%2 == 0 {
					return []string{fmt.Sprintf("worker %d: failed", w)}, w == 4
				}
				return nil, false
			})
		if c.Ops != 18 || len(c.Outputs) != 1 {
			t.Errorf("ops %d, outputs %v: want 18 of one output", c.Ops, c.Outputs)
		}
		if len(c.Errors) != 3 || !c.TimedOut {
			t.Errorf("errors %q, timed out %v: want 3 errors, timed out", c.Errors, c.TimedOut)
		}
	})
	t.Run("errors capped", func(t *testing.T) {
		c := &protocol.VerifyConcurrency{}
		runConcurrency(context.Background(), c, 9, time.Millisecond, 0, nil,
			func(w int, more func() bool, mine *distinctOutputs) ([]string, bool) {
				return []string{fmt.Sprintf("worker %d: failed", w)}, false
			})
		if len(c.Errors) != maxConcurrencyErrors {
			t.Errorf("errors %q: want %d", c.Errors, maxConcurrencyErrors)
		}
	})
	t.Run("hung worker left behind", func(t *testing.T) {
		c := &protocol.VerifyConcurrency{}
		release := make(chan struct{})
		defer close(release)
		start := time.Now()
		runConcurrency(context.Background(), c, 3, 10*time.Millisecond, 50*time.Millisecond,
			func(left int) string { return fmt.Sprintf("%d workers stuck", left) },
			func(w int, more func() bool, mine *distinctOutputs) ([]string, bool) {
				if w == 0 {
					<-release // stuck past the hang bound
				}
				mine.add([]byte{byte(w)})
				return nil, false
			})
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("took %v: the pool waited for the stuck worker", took)
		}
		if !c.TimedOut || len(c.Errors) != 1 || !strings.Contains(c.Errors[0], "1 workers stuck") {
			t.Errorf("timed out %v, errors %q: want timed out, 1 worker stuck", c.TimedOut, c.Errors)
		}
		if c.Ops != 2 {
			t.Errorf("ops %d: want the 2 workers that came back", c.Ops)
		}
	})
}

// TestConcurrencySeconds: a mode's concurrency check runs for a share of what the sweep measures in that mode:
// quick's 12 s a mode give 0.3 s (the openssl loops' floor of 1 s above it), the nightly's and full's hours the
// 2 s cap, a budget shares out over the modes, and the plan's own seconds win.
func TestConcurrencySeconds(t *testing.T) {
	sizes6 := []int{16, 64, 256, 1024, 8192, 16384}
	for _, tc := range []struct {
		name  string
		plan  protocol.Plan
		loops bool
		want  time.Duration
	}{
		{"quick", protocol.Plan{Algorithms: []string{"aes-128-cbc", "sha256"}, Seconds: 1, Repeats: 1}, false, 300 * time.Millisecond},
		{"quick, openssl loops", protocol.Plan{Algorithms: []string{"aes-128-cbc", "sha256"}, Seconds: 1}, true, time.Second},
		{"one point", protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Sizes: []int{16}, Seconds: 1}, false, concurrencyFloor},
		{"nightly", protocol.Plan{Algorithms: make([]string, 11), Sizes: sizes6, Seconds: 1, Repeats: 20, BudgetS: 3600,
			Modes: []string{"soft", "cpu", "afalg", "devcrypto", "kcapi"}}, false, 2 * time.Second},
		{"full", protocol.Plan{Algorithms: make([]string, 11), Seconds: 3, Repeats: 5}, true, 2 * time.Second},
		{"budget over modes", protocol.Plan{Algorithms: make([]string, 11), Seconds: 1, Repeats: 20, BudgetS: 100,
			Modes: []string{"soft", "cpu", "afalg", "devcrypto", "kcapi"}}, false, 500 * time.Millisecond},
		{"the plan's seconds", protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Seconds: 1, VerifySeconds: 0.05}, true, 50 * time.Millisecond},
	} {
		s := &sweepState{plan: tc.plan}
		if got := s.verifySeconds(tc.loops); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
