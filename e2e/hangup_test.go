package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestHangupInterrupts: a closed terminal (SIGHUP) stops a run like Ctrl-C: exit 130, the run stored as
// interrupted with what was measured, and the last line says "interrupted", not Go's "context canceled".
func TestHangupInterrupts(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("runs openssl for a few seconds")
	}
	w := newWorld(t)
	w.writeInventory(tolerant)
	p := w.start(append([]string{"run", "--boards", "local"}, longSweep...)...)
	w.waitPoints(p, "local", 1, 2*time.Minute)
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	r := p.wait(2 * time.Minute)
	if r.code != 130 || !strings.Contains(r.stderr, "interrupted") || strings.Contains(r.stderr, "context canceled") {
		t.Errorf("want exit 130 and \"interrupted\" without \"context canceled\" after SIGHUP\n%s", r)
	}
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) != 1 || runs[0].Status != protocol.StatusInterrupted || runs[0].Finished.IsZero() {
		t.Fatalf("runs = %+v, want one interrupted run with an end time", runs)
	}
}
