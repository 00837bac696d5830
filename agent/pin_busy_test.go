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

// TestCheckBusy: a child whose work shows on another CPU instead of its pinned ones ran elsewhere, and its point
// fails saying so; a pinned count short of the child's work with the others idle (the ticks a guest loses under
// emulation) or other CPUs busy while the pinned ones hold the child's work is no failure; with no advancing
// per-CPU count the evidence says the check was not made.
func TestCheckBusy(t *testing.T) {
	zero := map[int]cpuTimes{0: {}, 1: {}}
	after := func(busy0, busy1 uint64) map[int]cpuTimes {
		return map[int]cpuTimes{0: {Busy: busy0, Total: 100}, 1: {Busy: busy1, Total: 100}}
	}
	for _, tc := range []struct {
		name          string
		cpus          []int
		before, after map[int]cpuTimes
		child         float64 // CPU seconds of the waited-for child over 1 s; < 0 none (kcapi: the point's own)
		pointCPU      float64
		fail, unknown bool
	}{
		{name: "ran on its CPU", cpus: []int{1}, before: zero, after: after(2, 97), child: 0.95},
		{name: "ran on the other CPU", cpus: []int{1}, before: zero, after: after(98, 3), child: 0.95, fail: true},
		{name: "kcapi thread elsewhere", cpus: []int{1}, before: zero, after: after(90, 1), child: -1, pointCPU: 0.9,
			fail: true},
		{name: "ticks lost, others idle", cpus: []int{1}, before: zero, after: after(3, 30), child: 0.95},
		{name: "every CPU, ticks lost", cpus: []int{0, 1}, before: zero, after: after(10, 10), child: 0.99},
		{name: "board busy, kept to its CPU", cpus: []int{0}, before: zero, after: after(97, 100), child: 0.95},
		{name: "child mostly waiting", cpus: []int{1}, before: zero, after: after(60, 4), child: 0.05},
		{name: "CPU missing after", cpus: []int{1}, before: zero, after: map[int]cpuTimes{0: {Busy: 5, Total: 100}},
			child: 0.95, unknown: true},
		{name: "count did not advance", cpus: []int{1}, before: after(1, 1), after: after(1, 1), child: 0.95,
			unknown: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &pinnedRun{target: pinTarget{name: "cpu", cpus: tc.cpus}}
			r.keepBusy(tc.before, tc.after)
			if tc.child >= 0 {
				r.childWaited(tc.child, 1)
			}
			p := protocol.Point{UserS: tc.pointCPU, WallS: 1, Evidence: &protocol.Evidence{}}
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
	r.keepBusy(map[int]cpuTimes{0: {}, 1: {}, 2: {}, 3: {}, 4: {}},
		map[int]cpuTimes{0: {Total: 100}, 1: {Total: 100}, 2: {Total: 100}, 3: {Total: 100}, 4: {Busy: 100, Total: 100}})
	r.childWaited(1, 1)
	var p protocol.Point
	r.mark(&p)
	if !strings.Contains(p.Error, "the kernel ran the child on 0-1") {
		t.Errorf("error %q, want the Cpus_allowed_list mismatch", p.Error)
	}
}

// TestSweepPinnedBusyElsewhere sweeps a board root of this host's 2 CPUs (x86-host) whose /proc/stat says, once
// openssl speed starts, that CPU 0 did the work and CPU 1 idled (a wrapper writes the second count): the child
// pinned to CPU 1 spends CPU (FAKE_SYS), which the counts put on CPU 0, so the agent fails the point as run
// elsewhere. Without a /proc/stat the point stands and its evidence says the busy check could not be made.
func TestSweepPinnedBusyElsewhere(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() != 2 {
		t.Skip("needs Linux and exactly 2 CPUs")
	}
	t.Setenv("FAKE_SYS", "20000")
	const before = "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0 0 0\n"
	const after = "cpu  200 0 100 900 0 0 0 0 0 0\ncpu0 148 0 50 402 0 0 0 0 0 0\ncpu1 52 0 50 498 0 0 0 0 0 0\n"
	for _, tc := range []struct {
		name string
		stat bool
	}{{"CPU 0 did the work", true}, {"no /proc/stat", false}} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS("testdata/topology/x86-host")); err != nil {
				t.Fatal(err)
			}
			stat := filepath.Join(root, "proc", "stat")
			wrapper := filepath.Join(t.TempDir(), "openssl")
			script := "#!/bin/sh\nexec " + writeFakeOpenSSL(t) + " \"$@\"\n"
			if tc.stat {
				script = "#!/bin/sh\n[ \"$1\" = speed ] && printf '" + strings.ReplaceAll(after, "\n", "\\n") + "' > " + stat +
					"\nexec " + writeFakeOpenSSL(t) + " \"$@\"\n"
				if err := os.WriteFile(stat, []byte(before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			plan := protocol.Plan{OpenSSL: wrapper, Algorithms: []string{"aes-128-cbc"},
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
			t.Logf("cpus %s, %.2f s of CPU in %.2f s: failed %v (%s)", p.CPUs, p.UserS+p.SysS, p.WallS, p.Failed, p.Error)
			if p.CPUs != "1" {
				t.Fatalf("point cpus %q, want 1", p.CPUs)
			}
			if tc.stat {
				if !p.Failed || !strings.Contains(p.Error, "and CPU 0 was 98 % busy") {
					t.Errorf("point failed %v (%q), want failed as run on CPU 0", p.Failed, p.Error)
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
