package fleet

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// kmsgSink writes a line to the real kernel log (/dev/kmsg, as root may) when the first point arrives, in the
// middle of the sweep.
type kmsgSink struct {
	*memSink
	once sync.Once
	line string
	err  error
}

func (s *kmsgSink) Point(ctx context.Context, b string, p protocol.Point) error {
	s.once.Do(func() { s.err = os.WriteFile("/dev/kmsg", []byte(s.line+"\n"), 0) })
	return s.memSink.Point(ctx, b, p)
}

// TestRunKernelLogLocal sweeps the local board while a real kernel line that the board's own kernel_log pattern
// matches appears: the board run's health is "problems" with that line, the point measured when it appeared is
// flagged, and the line alone (no default pattern) does not fail the board.
func TestRunKernelLogLocal(t *testing.T) {
	probe := openKernelWatchProbe(t)
	defer probe()
	marker := fmt.Sprintf("fleet-test: kernel log pattern marker %d", time.Now().UnixNano())
	local := inventory.Board{Name: "local", Local: true, KernelPatterns: []string{`^fleet-test: kernel log pattern marker \d+$`}}
	opts := runOptions(t, local)
	opts.Sweep.Modes = []string{"cpu"}
	opts.Sweep.Sizes = []int{64, 1024, 8192}
	sink := &kmsgSink{memSink: newMemSink(), line: marker}
	outs, err := Run(context.Background(), opts, sink)
	if sink.err != nil {
		t.Skipf("cannot write /dev/kmsg here: %v", sink.err)
	}
	if err != nil {
		t.Fatalf("Run: %v (%v)", err, outs[0].Err)
	}
	h, ok := sink.kernel["local"]
	if !ok {
		t.Fatal("no kernel health stored")
	}
	if h.Source != protocol.KernelSourceKmsg {
		t.Skipf("kernel log read from %q (%s): this test needs /dev/kmsg", h.Source, h.Reason)
	}
	var found *protocol.HealthLine
	for i, l := range h.Lines {
		if l.Text == marker {
			found = &h.Lines[i]
		}
	}
	if h.Health != protocol.HealthProblems || found == nil {
		t.Fatalf("health %+v, want problems with the marker line", h)
	}
	if found.Pattern != local.KernelPatterns[0] || found.Fatal {
		t.Errorf("marker line %+v: want the board's pattern, not fatal", found)
	}
	if found.During != "the end of the sweep" {
		flagged := 0
		for _, p := range sink.points["local"] {
			if pointLabel(&p) == found.During && len(p.Flags) > 0 && strings.HasPrefix(p.Flags[len(p.Flags)-1], flagKernel+marker) {
				flagged++
			}
			if p.Kernel != nil {
				t.Errorf("point %s stored with its kernel lines", pointLabel(&p))
			}
		}
		if flagged != 1 {
			t.Errorf("%d points flagged for the line that appeared during %q, want 1", flagged, found.During)
		}
	}
	if outs[0].Status != protocol.StatusOK {
		t.Errorf("status %q (%v): a board pattern's line alone must not fail the board", outs[0].Status, outs[0].Err)
	}
}

// openKernelWatchProbe skips the test where /dev/kmsg cannot be opened for reading.
func openKernelWatchProbe(t *testing.T) func() {
	t.Helper()
	f, err := os.OpenFile("/dev/kmsg", os.O_RDONLY, 0)
	if err != nil {
		t.Skipf("/dev/kmsg: %v", err)
	}
	return func() { f.Close() }
}
