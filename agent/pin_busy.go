package agent

import (
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// The child's Cpus_allowed_list says where the kernel may run it; the CPUs' busy time says where it did run. Every
// tick of CPU the child used is a tick some CPU was busy, so a child that ran on its pinned CPUs only cannot have
// used more CPU than those CPUs were busy over the point. A point whose child did is failed: its work ran
// elsewhere, whatever its mask said (a kernel that ignores the mask, a cpuset changed mid-point, an agent whose
// mask did not reach the child). The converse is not checked: the pinned CPUs may be busy with other work too,
// which the point's background evidence judges.

// Slack of the busy-time check. /proc/stat counts whole ticks of the scheduler's clock and is read at each end of
// the point, while the child's times are its exact run time, so each pinned CPU may show up to a tick less at
// either end; a tick-sampled count also drifts from the exact one by a few percent over a point.
const (
	pinBusySlackTicks = 3    // per pinned CPU, in USER_HZ ticks
	pinBusySlackShare = 0.10 // of the pinned CPUs' busy time
)

// keepBusy records how many seconds the pinned CPUs were busy between two per-CPU samples; busyRead stays false,
// and the check cannot be made, when a pinned CPU is missing from either sample or its count went backwards.
func (r *pinnedRun) keepBusy(before, after map[int]cpuTimes) {
	var ticks uint64
	for _, c := range r.target.cpus {
		b, ok1 := before[c]
		a, ok2 := after[c]
		if !ok1 || !ok2 || a.Busy < b.Busy {
			return
		}
		ticks += a.Busy - b.Busy
	}
	r.pinnedBusyS, r.busyRead = float64(ticks)/userHZ, true
}

// childWaited records the CPU seconds (user + system, its waited-for descendants included: openssl -multi's
// workers) of the pinned child once it has been waited for.
func (r *pinnedRun) childWaited(cpuS float64) {
	r.childCPUS, r.childKnown = cpuS, true
}

// checkBusy fails the pinning when the child used more CPU than its pinned CPUs were busy; p's own times stand
// for the child's when no child was waited for (kcapi measures on a pinned thread of the agent). Where the
// per-CPU times could not be read, p's evidence says the check was not made.
func (r *pinnedRun) checkBusy(p *protocol.Point) {
	if r.why != "" {
		return
	}
	want := protocol.FormatCPUList(r.target.cpus)
	if !r.busyRead {
		if p.Evidence != nil {
			p.Evidence.Unknown = append(p.Evidence.Unknown, fmt.Sprintf("busy time of the pinned CPUs %s: "+
				"/proc/stat has no count for each of them before and after the point", want))
		}
		return
	}
	cpuS := p.UserS + p.SysS
	if r.childKnown {
		cpuS = r.childCPUS
	}
	limit := r.pinnedBusyS*(1+pinBusySlackShare) + float64(pinBusySlackTicks*len(r.target.cpus))/userHZ
	if cpuS > limit {
		r.why = fmt.Sprintf("pinned to %s, but it used %.2f s of CPU while those CPUs were busy %.2f s "+
			"(/proc/stat): it ran elsewhere", want, cpuS, r.pinnedBusyS)
	}
}
