package lab_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pinnedPoint is the part of `fleet results --format json` the CPU test checks.
type pinnedPoint struct {
	Mode       string  `json:"mode"`
	BlockSize  int     `json:"block_size"`
	CPUs       string  `json:"cpus"`
	Cluster    string  `json:"cluster"`
	PinnedBusy float64 `json:"pinned_busy_pct"`
	OtherBusy  float64 `json:"other_busy_pct"`
	CPUPct     float64 `json:"cpu_pct"`
	Failed     bool    `json:"failed"`
	Error      string  `json:"error"`
}

// TestLabCPUs pins qemu-arm64's sweeps (-smp 2) to its CPUs. QEMU's virt machine gives both vCPUs one core type
// (-cpu max: MIDR part 0x051, the same capacity), so the probe finds one cluster, "cpu" 0-1, and `--cpus each`
// measures that one group; `--cpus 0` and `--cpus 1` pin to one vCPU each. Every point records its CPUs and
// cluster, passed the agent's checks (the child's Cpus_allowed_list, and its work on its pinned CPUs by their busy
// time, pin_busy.go), and the pinned vCPU was the busy one; compare heads each pinned column with its cluster.
// The lab cannot show two clusters apart (its CPUs are alike): the fixtures of big.LITTLE boards do
// (agent TestPinTargets). Last, the board's SSH server is put in a cpuset of CPU 0 only, the way a container or a
// systemd slice would restrict the agent: a sweep pinned to 0-1 then gets 0 from the kernel, and the agent fails
// its points saying so.
func TestLabCPUs(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	root, lab, runDir, env := labPaths(t, "qemu-arm64")
	tmp := t.TempDir()
	fleetBin := filepath.Join(tmp, "fleet")
	db := filepath.Join(tmp, "cpus.db")
	inv := filepath.Join(runDir, "boards.toml")
	mustRun(t, ctx, nil, root, "go", "build", "-o", fleetBin, "./cmd/fleet")
	mustRun(t, ctx, env, root, lab, "build")
	t.Cleanup(func() {
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := command(t, down, env, root, lab, "down"); err != nil {
			t.Errorf("lab down: %v", err)
		}
	})
	mustRun(t, ctx, env, root, lab, "up")
	fleet := func(args ...string) string {
		t.Helper()
		return mustRun(t, ctx, nil, root, fleetBin, append([]string{"--inventory", inv, "--db", db}, args...)...)
	}
	// Each run is checked as the latest one (results, show and compare default to it).
	run := func(cpus string, extra ...string) {
		t.Helper()
		fleet(append([]string{"run", "--boards", "qemu-arm64", "--cpus", cpus, "--seconds", "1", "-a", "aes-128-cbc"},
			extra...)...)
	}

	// each: the default sizes, one openssl per series (cpu, soft), and kcapi's pinned thread
	run("each", "--modes", "cpu,soft,kcapi")
	checkOneCluster(t, fleet("show", "latest", "--format", "json"))
	checkPinned(t, fleet, "0-1", 6*3)
	for _, cpu := range []string{"0", "1"} {
		run(cpu, "--modes", "cpu,kcapi", "--sizes", "16,16384")
		checkPinned(t, fleet, cpu, 2*2)
	}
	checkCpuset(t, ctx, env, root, lab, fleetBin, inv, db)
}

// checkOneCluster: the lab's two vCPUs are one cluster, "cpu" 0-1 (QEMU's max CPU has a part no table names).
func checkOneCluster(t *testing.T, show string) {
	t.Helper()
	var s struct {
		BoardRuns []struct {
			Facts struct {
				CPU struct {
					Part     string `json:"part"`
					Clusters []struct {
						Name string `json:"name"`
						CPUs []int  `json:"cpus"`
					} `json:"clusters"`
				} `json:"cpu"`
			} `json:"facts"`
		} `json:"board_runs"`
	}
	if err := json.Unmarshal([]byte(show), &s); err != nil || len(s.BoardRuns) != 1 {
		t.Fatalf("show --format json: %v (%d board runs)", err, len(s.BoardRuns))
	}
	cpu := s.BoardRuns[0].Facts.CPU
	if len(cpu.Clusters) != 1 || cpu.Clusters[0].Name != "cpu" || len(cpu.Clusters[0].CPUs) != 2 {
		t.Errorf("qemu-arm64 clusters %+v (part %s), want one, cpu 0-1: the vCPUs are alike", cpu.Clusters, cpu.Part)
	}
}

// checkPinned: the latest run's n points are pinned to cpus and not failed; a point pinned to one vCPU kept it busy
// (≥ 70 %: the lab shows 98–100 %) while the other was much less so (the agent, dropbear and the guest's own
// work: 2–22 %); a point pinned to both vCPUs, single-threaded, kept them about half busy. compare heads every
// column with the cluster, and no column is the unpinned one.
func checkPinned(t *testing.T, fleet func(...string) string, cpus string, n int) {
	t.Helper()
	var points []pinnedPoint
	if err := json.Unmarshal([]byte(fleet("results", "--format", "json")), &points); err != nil {
		t.Fatalf("results: %v", err)
	}
	if len(points) != n {
		t.Errorf("--cpus %s: %d points, want %d", cpus, len(points), n)
	}
	for _, p := range points {
		name := p.Mode + " on " + cpus + " " + strconv.Itoa(p.BlockSize) + " B"
		t.Logf("%s: pinned CPUs %.0f %% busy, others %.0f %%, the point's CPU %.0f %%", name, p.PinnedBusy, p.OtherBusy,
			p.CPUPct)
		if p.Failed || p.CPUs != cpus || p.Cluster != "cpu" {
			t.Errorf("%s: failed %v (%s), cpus %q, cluster %q; want measured on %s, cluster cpu", name, p.Failed,
				p.Error, p.CPUs, p.Cluster, cpus)
			continue
		}
		if cpus == "0-1" {
			if p.PinnedBusy < 30 || p.OtherBusy != 0 {
				t.Errorf("%s: pinned CPUs %.0f %% busy, others %.0f %%; want ≥ 30 %% and no other CPU", name,
					p.PinnedBusy, p.OtherBusy)
			}
			continue
		}
		if p.PinnedBusy < 70 || p.OtherBusy > p.PinnedBusy/2 {
			t.Errorf("%s: pinned CPU %.0f %% busy, the other %.0f %%; want ≥ 70 %% and the other under half of it",
				name, p.PinnedBusy, p.OtherBusy)
		}
	}
	text := fleet("compare")
	for _, mode := range []string{"cpu", "kcapi"} {
		if !strings.Contains(text, mode+" on cpu") {
			t.Errorf("compare --cpus %s: no column \"%s on cpu\" in\n%s", cpus, mode, text)
		}
	}
	var cmp struct {
		Columns []struct {
			Mode    string `json:"mode"`
			Cluster string `json:"cluster"`
		} `json:"columns"`
	}
	if err := json.Unmarshal([]byte(fleet("compare", "--format", "json")), &cmp); err != nil {
		t.Fatalf("compare --format json: %v", err)
	}
	for _, c := range cmp.Columns {
		if c.Cluster != "cpu" {
			t.Errorf("compare --cpus %s: column %s has cluster %q, want cpu", cpus, c.Mode, c.Cluster)
		}
	}
}

// checkCpuset puts the board's dropbear (the listener and its sessions, so every later session too) in a cgroup
// v2 cpuset of CPU 0, runs a sweep pinned to 0-1 and takes dropbear out again. The agent asks for 0-1, the
// kernel gives the child 0, and the agent fails the point naming both.
func checkCpuset(t *testing.T, ctx context.Context, env []string, root, lab, fleetBin, inv, db string) {
	t.Helper()
	const cg = "/sys/fs/cgroup"
	ssh := func(script string) {
		t.Helper()
		mustRun(t, ctx, env, root, lab, "ssh", "qemu-arm64", script)
	}
	ssh("set -e; grep -q ' " + cg + " cgroup2 ' /proc/mounts || mount -t cgroup2 none " + cg + "; echo +cpuset > " + cg +
		"/cgroup.subtree_control; mkdir -p " + cg + "/fleet-cpu0; echo 0 > " + cg + "/fleet-cpu0/cpuset.cpus; " +
		"for p in $(pidof dropbear); do echo $p > " + cg + "/fleet-cpu0/cgroup.procs; done")
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = command(t, c, env, root, lab, "ssh", "qemu-arm64", "for p in $(cat "+cg+"/fleet-cpu0/cgroup.procs); "+
			"do echo $p > "+cg+"/cgroup.procs; done; rmdir "+cg+"/fleet-cpu0")
	})
	// The run fails (its only point failed): its exit is not the point, its stored point is.
	_, _ = command(t, ctx, nil, root, fleetBin, "--inventory", inv, "--db", db, "run", "--boards", "qemu-arm64",
		"--cpus", "0-1", "--modes", "cpu", "-a", "aes-128-cbc", "--sizes", "16", "--seconds", "1")
	var points []pinnedPoint
	out := mustRun(t, ctx, nil, root, fleetBin, "--db", db, "results", "--format", "json")
	if err := json.Unmarshal([]byte(out), &points); err != nil || len(points) != 1 {
		t.Fatalf("results after the cpuset run: %v, %d points, want 1", err, len(points))
	}
	p := points[0]
	if !p.Failed || p.CPUs != "0-1" || !strings.Contains(p.Error, "pinned to 0-1, but the kernel ran the child on 0 ") {
		t.Errorf("cpuset point: failed %v (%s), cpus %q; want failed, naming 0-1 asked and 0 given", p.Failed, p.Error,
			p.CPUs)
	}
}
