package agent

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func fixtureClusters(t *testing.T, board string) []protocol.Cluster {
	t.Helper()
	root := "testdata/topology/" + board
	info, err := os.ReadFile(root + "/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	return readClusters(root, info)
}

func TestPinTargets(t *testing.T) {
	for _, tc := range []struct{ board, spec, want, err string }{
		{"rk3399", "big", "A72 (4-5)", ""},
		{"rk3399", "little", "A53 (0-3)", ""},
		{"rk3399", "all", "all (0-5)", ""},
		{"rk3399", "each", "A53 (0-3), A72 (4-5)", ""},
		{"rk3399", "4", "A72 (4)", ""},
		{"rk3399", "3-4", "mixed (3-4)", ""},
		{"rk3588", "big", "A76 (4-7)", ""},
		{"rk3588", "each", "A55 (0-3), A76 (4-7)", ""},
		{"s922x", "big", "A73 (2-5)", ""},
		{"s922x", "little", "A53 (0-1)", ""},
		{"pi4", "each", "A72 (0-3)", ""},
		{"pi4", "big", "A72 (0-3)", ""},
		{"rk3399", "6", "", "CPU 6 is not online on this board (online: 0-5)"},
		{"rk3399", "fast", "", `cpus "fast": "fast" is not a CPU number`},
		{"rk3399", "5-4", "", "range 5-4 runs backwards"},
	} {
		t.Run(tc.board+"/"+tc.spec, func(t *testing.T) {
			got, err := pinTargets(tc.spec, fixtureClusters(t, tc.board))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("pinTargets(%q) error = %v, want %q", tc.spec, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, x := range got {
				labels = append(labels, x.label())
			}
			if s := strings.Join(labels, ", "); s != tc.want {
				t.Errorf("pinTargets(%q) = %s, want %s", tc.spec, s, tc.want)
			}
		})
	}
	if _, err := pinTargets("big", nil); err == nil {
		t.Error("pinTargets with no clusters: no error")
	}
}

// allowedLists are the Cpus_allowed_list of every thread of this process.
func allowedLists(t *testing.T) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/self/task/*")
	if err != nil || len(dirs) == 0 {
		t.Skipf("no /proc/self/task: %v", err)
	}
	out := map[string]string{}
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/status")
		if err != nil {
			continue // a thread that ended
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				out[filepath.Base(d)] = strings.TrimSpace(v)
			}
		}
	}
	return out
}

// TestStartPinnedChild: the child runs on the CPU asked for (the kernel's own view, from inside the child), and
// no thread of the agent keeps the mask.
func TestStartPinnedChild(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and 2 CPUs")
	}
	before := allowedLists(t)
	for _, cpus := range [][]int{{1}, {0}, {0, 1}} {
		pin := &pinnedRun{target: pinTarget{name: "t", cpus: cpus}}
		var stderr bytes.Buffer
		res := runChildPinned(t.Context(), []string{"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status; sleep 0.05"},
			nil, nil, &stderr, nil, pin)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		want := protocol.FormatCPUList(cpus)
		if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(res.Stdout), "Cpus_allowed_list:")); got != want {
			t.Errorf("child says Cpus_allowed_list %q, want %q", got, want)
		}
		if pin.allowed != want || pin.why != "" {
			t.Errorf("agent read %q (why %q), want %q", pin.allowed, pin.why, want)
		}
	}
	for tid, list := range allowedLists(t) {
		if old, ok := before[tid]; ok && old != list {
			t.Errorf("thread %s: Cpus_allowed_list %s after pinning, %s before", tid, list, old)
		}
	}
}

// TestOnPinnedThread: an in-process measurement (kcapi) runs on a thread pinned to the CPU.
func TestOnPinnedThread(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and 2 CPUs")
	}
	ran := false
	status, ok, err := onPinnedThread([]int{1}, func() { ran = true })
	if err != nil || !ok || !ran {
		t.Fatalf("onPinnedThread: ran %v %v, err %v", ok, ran, err)
	}
	r := &pinnedRun{target: pinTarget{cpus: []int{1}}}
	r.checkAllowed(status, nil)
	if r.allowed != "1" || r.why != "" {
		t.Errorf("thread Cpus_allowed_list %q (why %q), want 1", r.allowed, r.why)
	}
}

func TestCheckAllowedMismatch(t *testing.T) {
	r := &pinnedRun{target: pinTarget{name: "A53", cpus: []int{0, 1, 2, 3}}}
	r.checkAllowed("Name:\topenssl\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n", nil)
	var p protocol.Point
	r.mark(&p)
	if !p.Failed || !strings.Contains(p.Error, "pinned to 0-3, but the kernel ran the child on 0-1") {
		t.Errorf("point %+v: want failed, naming 0-3 and 0-1", p)
	}
	if p.CPUs != "0-3" || p.Cluster != "A53" {
		t.Errorf("point cpus %q cluster %q, want 0-3 A53", p.CPUs, p.Cluster)
	}
}

// TestSweepPinnedRealOpenSSL pins this host's openssl (x86, 2 vCPUs of one kind: one cluster "cpu") to CPU 1
// and to each cluster: every point records its CPUs and cluster, and CPU 1 was busy while the point ran.
func TestSweepPinnedRealOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and 2 CPUs")
	}
	for _, tc := range []struct{ spec, cpus string }{{"1", "1"}, {"each", "0-1"}} {
		plan := protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Modes: []string{"cpu"}, Sizes: []int{8192}, Seconds: 0.5,
			CPUs: tc.spec}
		var out bytes.Buffer
		if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
			t.Fatal(err)
		}
		var points []*protocol.Point
		for _, m := range decodeAll(t, out.Bytes()) {
			switch m.Type {
			case protocol.TypePoint:
				points = append(points, m.Point)
			case protocol.TypeError, protocol.TypeSkip:
				t.Errorf("unexpected %s: %s %+v", m.Type, m.Error, m.Skip)
			}
		}
		if len(points) != 1 {
			t.Fatalf("--cpus %s: %d points, want 1", tc.spec, len(points))
		}
		p := points[0]
		if p.Failed || p.CPUs != tc.cpus || p.Cluster != "cpu" {
			t.Errorf("--cpus %s: point failed %v (%s), cpus %q cluster %q, want %s cpu", tc.spec, p.Failed, p.Error, p.CPUs, p.Cluster, tc.cpus)
		}
		if tc.spec == "1" && p.PinnedBusyPct < 70 {
			t.Errorf("CPU 1 was %.0f%% busy during a point pinned to it, want ≥ 70%%", p.PinnedBusyPct)
		}
		t.Logf("--cpus %s: %.0f MB/s on %s, pinned CPUs %.0f%% busy, the others %.0f%%", tc.spec, p.BytesPerSec/1e6,
			p.CPUs, p.PinnedBusyPct, p.OtherBusyPct)
	}
}

// TestSweepPinnedFixtureClusters sweeps with the RK3399's clusters (the fixture's sysfs) on this 2-CPU host:
// each cluster in turn, -multi its core count; the A53s' 0-3 is cut to this host's 0-1 by the kernel, which the
// agent sees and fails the point for, and the A72s' 4-5 do not exist here, which the kernel refuses.
func TestSweepPinnedFixtureClusters(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() != 2 {
		t.Skip("needs Linux and exactly 2 CPUs")
	}
	plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Algorithms: []string{"aes-128-cbc"}, Modes: []string{"cpu"},
		Sizes: []int{16}, Seconds: 0.1, CPUs: "each", ClusterThreads: true}
	var out bytes.Buffer
	if _, err := sweepWith(context.Background(), plan, protocol.NewEncoder(&out), "testdata/topology/rk3399"); err != nil {
		t.Fatal(err)
	}
	var points []*protocol.Point
	var errs []string
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypePoint:
			points = append(points, m.Point)
		case protocol.TypeError:
			errs = append(errs, m.Error)
		}
	}
	if len(points) != 1 {
		t.Fatalf("%d points, want 1 (the A53s')", len(points))
	}
	p := points[0]
	if p.Cluster != "A53" || p.CPUs != "0-3" || p.Threads != 4 || !p.Failed || !strings.Contains(p.Error, "ran the child on 0-1") {
		t.Errorf("A53 point: cluster %q cpus %q threads %d failed %v (%s)", p.Cluster, p.CPUs, p.Threads, p.Failed, p.Error)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "sched_setaffinity") {
		t.Errorf("errors %q, want the A72s' sched_setaffinity refusal", errs)
	}
}

// TestSweepPinnedNoClusters: a board whose CPUs cannot be read skips every mode, saying why.
func TestSweepPinnedNoClusters(t *testing.T) {
	root := t.TempDir()
	plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Algorithms: []string{"aes-128-cbc"}, Modes: []string{"cpu"},
		Sizes: []int{16}, Seconds: 0.1, CPUs: "big"}
	var out bytes.Buffer
	if _, err := sweepWith(context.Background(), plan, protocol.NewEncoder(&out), root); err != nil {
		t.Fatal(err)
	}
	var skips []string
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypePoint:
			t.Errorf("point %+v measured without the CPUs it was to be pinned to", m.Point)
		case protocol.TypeSkip:
			skips = append(skips, m.Skip.Reason)
		}
	}
	if len(skips) != 1 || !strings.Contains(skips[0], "could not be read") {
		t.Errorf("skips %q, want one naming the unreadable CPUs", skips)
	}
}
