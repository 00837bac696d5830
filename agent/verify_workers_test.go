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
