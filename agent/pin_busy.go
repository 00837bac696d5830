package agent

import (
	"fmt"
	"slices"

	"github.com/fleetlab/fleet/protocol"
)

// The child's Cpus_allowed_list says where the kernel may run it; the CPUs' busy time over the point says where it
// did run. A child that ran elsewhere leaves its pinned CPUs short of the work it did and makes some other CPU busy
// with it, so the agent fails a pinned point when both show: the pinned CPUs were busy less than half the share the
// child alone needed of them (its CPU seconds over its wall seconds, spread over the pinned CPUs), and another CPU
// was busy at least that half. Each condition alone is not enough: a pinned set's count may be short while the
// others are idle (under emulation, a guest's /proc/stat loses the ticks of a vCPU its host did not run, while its
// idle time is exact: the lab's qemu-arm64 showed a point pinned to 0-1 that used 0.99 s of CPU in 1.02 s with
// those CPUs 25 % busy), and other CPUs may be busy with other work while the child keeps to its own (the point's
// background evidence judges that). Shares, not seconds, because lost ticks shrink a count, not its share of the
// time. A point pinned to every CPU has nowhere else to run and is never failed by this.

// keepBusy records, from two per-CPU samples, how busy the pinned CPUs were together and which other CPU was
// busiest; busyRead stays false, and the check cannot be made, when a pinned CPU is missing from either sample or
// its count did not advance.
func (r *pinnedRun) keepBusy(before, after map[int]cpuTimes) {
	for _, c := range r.target.cpus {
		b, ok1 := before[c]
		a, ok2 := after[c]
		if !ok1 || !ok2 || a.Total <= b.Total || a.Busy < b.Busy {
			return
		}
	}
	pinned, ok := busyOf(before, after, r.target.cpus, true)
	if !ok {
		return
	}
	r.pinnedPct, r.busyRead = pinned, true
	r.busiestOther, r.busiestPct = -1, 0
	for c, a := range after {
		if slices.Contains(r.target.cpus, c) {
			continue
		}
		if pct, ok := busyPct(before[c], a); ok && pct > r.busiestPct {
			r.busiestOther, r.busiestPct = c, pct
		}
	}
}

// childWaited records the CPU seconds (user + system, its waited-for descendants included: openssl -multi's
// workers) and the wall seconds of the pinned child once it has been waited for.
func (r *pinnedRun) childWaited(cpuS, wallS float64) {
	r.childCPUS, r.childWallS, r.childKnown = cpuS, wallS, true
}

// checkBusy fails the pinning when the child's work shows on another CPU instead of its own (above); p's own
// times stand for the child's when no child was waited for (kcapi measures on a pinned thread of the agent).
// Where the per-CPU counts could not be read, p's evidence says the check was not made.
func (r *pinnedRun) checkBusy(p *protocol.Point) {
	if r.why != "" {
		return
	}
	want := protocol.FormatCPUList(r.target.cpus)
	if !r.busyRead {
		if p.Evidence != nil {
			p.Evidence.Unknown = append(p.Evidence.Unknown, fmt.Sprintf("busy time of the pinned CPUs %s: "+
				"/proc/stat has no advancing count for each of them over the point", want))
		}
		return
	}
	cpuS, wallS := p.UserS+p.SysS, p.WallS
	if r.childKnown {
		cpuS, wallS = r.childCPUS, r.childWallS
	}
	if wallS <= 0 || len(r.target.cpus) == 0 {
		return
	}
	need := min(cpuS/wallS/float64(len(r.target.cpus))*100, 100)
	if r.pinnedPct < need/2 && r.busiestOther >= 0 && r.busiestPct >= need/2 {
		r.why = fmt.Sprintf("pinned to %s, but those CPUs were %.0f %% busy while it needed %.0f %% of them, and CPU "+
			"%d was %.0f %% busy (/proc/stat): it ran elsewhere", want, r.pinnedPct, need, r.busiestOther, r.busiestPct)
	}
}
