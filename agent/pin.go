package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// Pinning. The agent sets the CPU affinity that its openssl child inherits: the goroutine that starts the child
// locks itself to its OS thread, sets that thread's affinity (sched_setaffinity acts on the calling thread), starts
// the child (fork copies the calling thread's mask) and puts the thread's mask back (pin_linux.go). Chosen over
// `taskset` (busybox boards often lack it, and its absence would be one more skip) and over re-executing the agent
// as a trampoline (one more exec and argv protocol per point, on boards where exec costs 0.1 s under emulation):
// the child starts exactly as it does unpinned, and the mask it got is checked from the kernel's side
// (/proc/PID/status Cpus_allowed_list) before the point is trusted. openssl -multi forks its workers from the
// child, and they inherit the mask too.

// pinTarget is one set of CPUs a sweep measures on: a cluster, every CPU, or a list.
type pinTarget struct {
	name    string // the cluster's name, "all", or "mixed" for a list that spans clusters
	cpus    []int
	threads int // -multi of its openssl runs (plan.ClusterThreads: its CPU count); 0 the plan's
}

// label is the target as a log line names it: "A72 (4-5)".
func (t pinTarget) label() string { return t.name + " (" + protocol.FormatCPUList(t.cpus) + ")" }

// maxPinCPU is the highest CPU the agent can pin to: x/sys's CPUSet holds 1024.
const maxPinCPU = 1023

// pinTargets resolves a plan's CPU selection against the board's clusters: nil for "" (no pinning), else the
// targets in the order they are measured (each: smallest cluster first).
func pinTargets(spec string, clusters []protocol.Cluster) ([]pinTarget, error) {
	if spec == "" {
		return nil, nil
	}
	if err := protocol.CheckCPUs(spec); err != nil {
		return nil, err
	}
	if len(clusters) == 0 {
		return nil, fmt.Errorf("cpus %s: the board's CPUs could not be read from /sys/devices/system/cpu", spec)
	}
	var all []int
	for _, c := range clusters {
		all = append(all, c.CPUs...)
	}
	protocol.SortInts(all)
	var out []pinTarget
	switch spec {
	case protocol.CPUsLittle:
		out = []pinTarget{{name: clusters[0].Name, cpus: clusters[0].CPUs}}
	case protocol.CPUsBig:
		c := clusters[len(clusters)-1]
		out = []pinTarget{{name: c.Name, cpus: c.CPUs}}
	case protocol.CPUsAll:
		out = []pinTarget{{name: protocol.CPUsAll, cpus: all}}
	case protocol.CPUsEach:
		for _, c := range clusters {
			out = append(out, pinTarget{name: c.Name, cpus: c.CPUs})
		}
	default:
		list, _ := protocol.ParseCPUList(spec)
		for _, n := range list {
			if !slices.Contains(all, n) {
				return nil, fmt.Errorf("cpus %s: CPU %d is not online on this board (online: %s)", spec, n, protocol.FormatCPUList(all))
			}
		}
		out = []pinTarget{{name: clusterOf(list, clusters), cpus: list}}
	}
	for _, t := range out {
		if last := t.cpus[len(t.cpus)-1]; last > maxPinCPU {
			return nil, fmt.Errorf("cpus %s: CPU %d is past the %d the agent can pin to", spec, last, maxPinCPU)
		}
	}
	return out, nil
}

// clusterOf names the cluster all of list is in, or "mixed".
func clusterOf(list []int, clusters []protocol.Cluster) string {
	for _, c := range clusters {
		in := true
		for _, n := range list {
			in = in && slices.Contains(c.CPUs, n)
		}
		if in {
			return c.Name
		}
	}
	return "mixed"
}

// perCPUTimes reads the cpuN lines of /proc/stat: busy and total ticks of each CPU.
func perCPUTimes(root string) map[int]cpuTimes {
	b, err := os.ReadFile(root + "/proc/stat")
	if err != nil {
		return nil
	}
	out := map[int]cpuTimes{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil {
			continue
		}
		line := "cpu " + strings.Join(f[1:], " ")
		if t, err := parseProcStat(strings.NewReader(line)); err == nil {
			out[n] = t
		}
	}
	return out
}

// busyOf is how busy the CPUs in (or, with in false, not in) cpus were between two per-CPU samples, 100 = all of
// them all the time; ok false when there is nothing to tell.
func busyOf(before, after map[int]cpuTimes, cpus []int, in bool) (float64, bool) {
	var b, a cpuTimes
	for n, t := range after {
		if slices.Contains(cpus, n) != in {
			continue
		}
		if s, ok := before[n]; ok {
			b.Busy, b.Total = b.Busy+s.Busy, b.Total+s.Total
			a.Busy, a.Total = a.Busy+t.Busy, a.Total+t.Total
		}
	}
	return busyPct(b, a)
}

// pinnedRun is what the agent knows of one pinned child: what it asked for, what the kernel says the child got,
// and how busy the CPUs were meanwhile.
type pinnedRun struct {
	target        pinTarget
	threads       int    // -multi it ran with when the target set it; 0 the plan's
	allowed       string // Cpus_allowed_list of the child, as the kernel printed it; "" unread
	why           string // why the point cannot be trusted as pinned; "" when it can
	pinned, other float64
	busyOK        bool
	// what the busy-time check reads (pin_busy.go): the pinned CPUs' busy share and the busiest other CPU's
	// (busiestOther -1: none), when busyRead; the waited-for child's CPU and wall seconds, when childKnown
	pinnedPct, busiestPct float64
	busiestOther          int
	busyRead              bool
	childCPUS, childWallS float64
	childKnown            bool
}

// mark records the pinning on p and fails p when the child did not run where it was asked to.
func (r *pinnedRun) mark(p *protocol.Point) {
	if r == nil {
		return
	}
	p.CPUs, p.Cluster = protocol.FormatCPUList(r.target.cpus), r.target.name
	if r.threads > 0 {
		p.Threads = r.threads
	}
	if r.busyOK {
		p.PinnedBusyPct, p.OtherBusyPct = r.pinned, r.other
	}
	r.checkBusy(p)
	if r.why != "" && !p.Failed {
		p.Failed, p.Error = true, r.why
	}
}

// checkAllowed compares the child's Cpus_allowed_list (read from /proc/PID/status while it ran) with the target.
func (r *pinnedRun) checkAllowed(status string, readErr error) {
	want := protocol.FormatCPUList(r.target.cpus)
	if readErr != nil {
		r.why = fmt.Sprintf("pinned to %s, but its Cpus_allowed_list could not be read: %v", want, readErr)
		return
	}
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			r.allowed = strings.TrimSpace(v)
		}
	}
	got, err := protocol.ParseCPUList(r.allowed)
	switch {
	case r.allowed == "":
		r.why = fmt.Sprintf("pinned to %s, but /proc/PID/status has no Cpus_allowed_list", want)
	case err != nil || protocol.FormatCPUList(got) != want:
		r.why = fmt.Sprintf("pinned to %s, but the kernel ran the child on %s (Cpus_allowed_list; a cpuset may restrict the agent)", want, r.allowed)
	}
}
