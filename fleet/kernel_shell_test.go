package fleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

const shellOops = "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000"

// kernelShellBoard is a shell-path board (dash) whose dmesg prints an old line when the sweep starts, and from
// its second run on what then says: then, the lines a point printed (then is a dmesg -r log), or "fail" for a
// dmesg that exits 1 as under kernel.dmesg_restrict = 1.
func kernelShellBoard(t *testing.T, then string) *hostTransport {
	t.Helper()
	board := shellBoard(t, []string{"dash"})
	for _, tool := range []string{"tail"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not installed", tool)
		}
		if err := os.Symlink(p, filepath.Join(board.path, tool)); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	old := "<6>[    1.000000] Booting Linux on physical CPU 0x0\n"
	for name, content := range map[string]string{"old": old, "then": old + then} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf(`#!/bin/sh
if [ -e %[1]s/started ]; then
	if [ %[2]q = fail ]; then echo 'dmesg: read kernel buffer failed: Operation not permitted' >&2; exit 1; fi
	cat %[1]s/then
	exit 0
fi
: > %[1]s/started
cat %[1]s/old
`, dir, then)
	if err := os.WriteFile(filepath.Join(board.path, "dmesg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return board
}

// sweepShellKernel measures one cpu point on board through the shell path and returns the judge.
func sweepShellKernel(t *testing.T, board *hostTransport) (*kernelJudge, []protocol.Point) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sink := newMemSink()
	rec := &recorder{sink: sink, board: "sh", kernel: newKernelJudge(nil)}
	plan := protocol.Plan{Modes: []string{protocol.ModeCPU}, Algorithms: []string{"aes-128-cbc"}, Sizes: []int{64}, Seconds: 0.1, Repeats: 1}
	onFacts := func(f *protocol.Facts) (protocol.Plan, error) {
		rec.kernel.setFacts(f)
		return plan, rec.facts(ctx, *f)
	}
	r := &boardRun{ctx: ctx, opts: RunOptions{Progress: noProgress{}}, b: inventory.Board{Name: "sh"}, t: board,
		rec: rec, shellWhy: "test"}
	if err := r.measureShell(plan, onFacts); err != nil {
		t.Fatal(err)
	}
	return rec.kernel, sink.points["sh"]
}

// TestShellPathKernelFloodThenOops: on the shell path the board's own dmesg is read (not the controller's
// log), and a point during which it printed 500 noise lines and then an Oops fails the board run on the Oops.
func TestShellPathKernelFloodThenOops(t *testing.T) {
	var flood strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&flood, "<3>[    2.%06d] virtio_crypto virtio0: dataq.0: request %d done\n", i, i)
	}
	fmt.Fprintf(&flood, "<1>[    3.000000] %s\n", shellOops)
	k, points := sweepShellKernel(t, kernelShellBoard(t, flood.String()))
	h := k.result()
	if k.fatalLine() != shellOops || h.Health != protocol.HealthProblems || h.Source != protocol.KernelSourceDmesg || h.Read != 501 {
		t.Fatalf("fatal %q, health %+v: want the Oops, problems, 501 lines read from the board's dmesg", k.fatalLine(), h)
	}
	if len(points) != 1 || len(points[0].Flags) == 0 || points[0].Flags[len(points[0].Flags)-1] != flagKernel+shellOops {
		t.Errorf("points %+v: want the one point flagged with the Oops", points)
	}
}

// TestShellPathKernelUnreadable: the board's dmesg fails after the sweep began; the health is unknown with the
// reason, never ok.
func TestShellPathKernelUnreadable(t *testing.T) {
	k, _ := sweepShellKernel(t, kernelShellBoard(t, "fail"))
	h := k.result()
	if h.Health != protocol.HealthUnknown || !strings.Contains(h.Reason, "Operation not permitted") ||
		!strings.Contains(h.Reason, "the kernel log was not read during cpu aes-128-cbc 64 B") {
		t.Errorf("health %+v: want unknown, with dmesg's reason and the point", h)
	}
}
