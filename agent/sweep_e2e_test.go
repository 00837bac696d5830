package agent

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestSweepRealOpenSSL measures aes-128-cbc with this host's openssl in the soft and cpu modes.
func TestSweepRealOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	plan := protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Modes: []string{"soft", "cpu"}, Sizes: []int{8192}, Seconds: 0.3}
	var out bytes.Buffer
	done, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out))
	if err != nil {
		t.Fatal(err)
	}
	var facts *protocol.Facts
	points := map[string]*protocol.Point{}
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypeFacts:
			facts = m.Facts
		case protocol.TypePoint:
			points[m.Point.Mode] = m.Point
		case protocol.TypeError, protocol.TypeSkip:
			t.Errorf("unexpected %s: %s %+v", m.Type, m.Error, m.Skip)
		}
	}
	if done.Points != 2 || done.Failed != 0 {
		t.Fatalf("done = %+v, want 2 points, none failed", done)
	}
	for _, mode := range []string{"soft", "cpu"} {
		p := points[mode]
		if p == nil {
			t.Fatalf("no %s point", mode)
		}
		if p.WallS <= 0 || p.UserS+p.SysS <= 0 || p.BytesPerSec <= 0 || p.CPUPct <= 0 || p.BlockSize != 8192 {
			t.Errorf("%s point %+v: want wall, CPU time, throughput and block size 8192", mode, p)
		}
		if p.Algorithm != "aes-128-cbc" || p.Timing != "wall" || p.RawID == 0 {
			t.Errorf("%s point %+v: want aes-128-cbc on wall time with its raw output", mode, p)
		}
		t.Logf("%s: %.0f MB/s, wall %.2f s, user %.2f s, sys %.2f s, cpu %.0f%%, system busy %.0f%%",
			mode, p.BytesPerSec/1e6, p.WallS, p.UserS, p.SysS, p.CPUPct, p.SysBusyPct)
	}
	if facts == nil || !hasCPUFeature(facts.CPU, "aes") {
		t.Skip("no AES instructions on this CPU: soft and cpu run the same code")
	}
	if facts.CPU.Implementer == "0x00" {
		// QEMU's TCG "max" CPU (implementer 0): it emulates the AES instructions slower than plain C runs
		t.Skip("emulated ARM CPU: its AES instructions are not faster than software")
	}
	if soft, cpu := points["soft"].BytesPerSec, points["cpu"].BytesPerSec; soft*2 > cpu {
		t.Errorf("soft %.0f MB/s is not clearly slower than cpu %.0f MB/s: the capability mask did not turn AES off", soft/1e6, cpu/1e6)
	}
}
