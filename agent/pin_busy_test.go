package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestCheckBusy: a child whose CPU time exceeds what its pinned CPUs were busy ran elsewhere, and its point
// fails saying so; within the ticks' slack it passes; with no per-CPU count the evidence says the check was not
// made.
func TestCheckBusy(t *testing.T) {
	ticks := func(busy0, busy1 uint64) map[int]cpuTimes {
		return map[int]cpuTimes{0: {Busy: busy0, Total: 1000}, 1: {Busy: busy1, Total: 1000}}
	}
	for _, tc := range []struct {
		name          string
		cpus          []int
		before, after map[int]cpuTimes
		child         float64 // CPU seconds of the waited-for child; < 0 none (kcapi: the point's own)
		pointCPU      float64
		fail, unknown bool
	}{
		{name: "ran on its CPU", cpus: []int{1}, before: ticks(0, 0), after: ticks(2, 97), child: 0.95},
		{name: "within the slack", cpus: []int{1}, before: ticks(0, 0), after: ticks(0, 84), child: 0.95},
		{name: "ran on the other CPU", cpus: []int{1}, before: ticks(0, 0), after: ticks(98, 3), child: 0.95, fail: true},
		{name: "half elsewhere", cpus: []int{0}, before: ticks(0, 0), after: ticks(50, 50), child: 0.98, fail: true},
		{name: "both CPUs", cpus: []int{0, 1}, before: ticks(10, 10), after: ticks(60, 60), child: 0.98},
		{name: "kcapi thread", cpus: []int{1}, before: ticks(0, 0), after: ticks(90, 1), child: -1, pointCPU: 0.9,
			fail: true},
		{name: "CPU missing after", cpus: []int{1}, before: ticks(0, 0), after: map[int]cpuTimes{0: {Busy: 5}},
			child: 0.95, unknown: true},
		{name: "count went back", cpus: []int{1}, before: ticks(0, 50), after: ticks(0, 10), child: 0.95, unknown: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &pinnedRun{target: pinTarget{name: "cpu", cpus: tc.cpus}}
			r.keepBusy(tc.before, tc.after)
			if tc.child >= 0 {
				r.childWaited(tc.child)
			}
			p := protocol.Point{UserS: tc.pointCPU, Evidence: &protocol.Evidence{}}
			r.mark(&p)
			if p.Failed != tc.fail || tc.fail && !strings.Contains(p.Error, "it ran elsewhere") {
				t.Errorf("point failed %v (%q), want failed %v", p.Failed, p.Error, tc.fail)
			}
			unknown := strings.Join(p.Evidence.Unknown, "; ")
			if got := strings.Contains(unknown, "busy time of the pinned CPUs"); got != tc.unknown {
				t.Errorf("evidence unknown %q, want the busy check named unknown: %v", unknown, tc.unknown)
			}
		})
	}
}

// TestCheckBusyKeepsFirstReason: a child already failed for its Cpus_allowed_list keeps that reason.
func TestCheckBusyKeepsFirstReason(t *testing.T) {
	r := &pinnedRun{target: pinTarget{cpus: []int{0, 1, 2, 3}}}
	r.checkAllowed("Cpus_allowed_list:\t0-1\n", nil)
	r.keepBusy(map[int]cpuTimes{0: {}, 1: {}, 2: {}, 3: {}}, map[int]cpuTimes{0: {}, 1: {}, 2: {}, 3: {}})
	r.childWaited(1)
	var p protocol.Point
	r.mark(&p)
	if !strings.Contains(p.Error, "the kernel ran the child on 0-1") {
		t.Errorf("error %q, want the Cpus_allowed_list mismatch", p.Error)
	}
}

// TestSweepPinnedBusyElsewhere sweeps with a /proc/stat that does not move (a board root of this host's 2 CPUs,
// x86-host, plus a fixed per-CPU count): the child pinned to CPU 1 spends CPU (FAKE_SYS), which the counts say
// CPU 1 never did, so the agent fails the point as run elsewhere; without a /proc/stat the point stands and its
// evidence says the busy check could not be made.
func TestSweepPinnedBusyElsewhere(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() != 2 {
		t.Skip("needs Linux and exactly 2 CPUs")
	}
	t.Setenv("FAKE_SYS", "3000")
	for _, tc := range []struct {
		name string
		stat string
	}{
		{"fixed counts", "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0 0 0\n"},
		{"no /proc/stat", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS("testdata/topology/x86-host")); err != nil {
				t.Fatal(err)
			}
			if tc.stat != "" {
				if err := os.WriteFile(filepath.Join(root, "proc", "stat"), []byte(tc.stat), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Algorithms: []string{"aes-128-cbc"},
				Modes: []string{"cpu"}, Sizes: []int{16}, Seconds: 0.1, CPUs: "1"}
			var out bytes.Buffer
			if _, err := sweepWith(context.Background(), plan, protocol.NewEncoder(&out), root); err != nil {
				t.Fatal(err)
			}
			var points []*protocol.Point
			for _, m := range decodeAll(t, out.Bytes()) {
				if m.Type == protocol.TypePoint {
					points = append(points, m.Point)
				}
			}
			if len(points) != 1 {
				t.Fatalf("%d points, want 1", len(points))
			}
			p := points[0]
			t.Logf("cpus %s, %.2f s of CPU: failed %v (%s), unknown %q", p.CPUs, p.UserS+p.SysS, p.Failed, p.Error,
				p.Evidence.Unknown)
			if p.CPUs != "1" {
				t.Fatalf("point cpus %q, want 1", p.CPUs)
			}
			if tc.stat != "" {
				if !p.Failed || !strings.Contains(p.Error, "pinned to 1, but it used") {
					t.Errorf("point failed %v (%q), want failed as run elsewhere", p.Failed, p.Error)
				}
				return
			}
			if p.Failed || p.Evidence == nil || !strings.Contains(strings.Join(p.Evidence.Unknown, "; "), "pinned CPUs 1") {
				t.Errorf("point failed %v (%q), evidence %+v; want it kept, the busy check named unknown", p.Failed,
					p.Error, p.Evidence)
			}
		})
	}
}
