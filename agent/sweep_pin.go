package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// A pinned sweep (plan.CPUs) measures each of its targets as a mode of its own: for each algorithm and block
// size, every mode on every target once before any runs again (schedule), so "each" measures the clusters in
// turn, interleaved as modes are. The verification of a path runs once, on the first target.

// pinTargets resolves the plan's CPUs: one nil target (not pinned) when the plan names none, else the targets;
// why is set, and every mode is skipped with it, when the plan's CPUs cannot be had on this board.
func (s *sweepState) pinTargets() (targets []*pinTarget, why string) {
	if s.plan.CPUs == "" {
		return []*pinTarget{nil}, ""
	}
	if s.remote != nil {
		return []*pinTarget{nil}, fmt.Sprintf("cpus %s: pinning needs the agent on the board, and this board is measured "+
			"through its shell", s.plan.CPUs)
	}
	list, err := pinTargets(s.plan.CPUs, s.facts.CPU.Clusters)
	if err != nil {
		return []*pinTarget{nil}, err.Error()
	}
	for i := range list {
		t := &list[i]
		if s.plan.ClusterThreads {
			t.threads = len(t.cpus)
		}
		targets = append(targets, t)
	}
	names := make([]string, len(list))
	for i, t := range list {
		names[i] = t.label()
	}
	_ = s.enc.Encode(protocol.TypeLog, &protocol.Log{Level: "info", Msg: "pinned to " + strings.Join(names, ", ")})
	return targets, ""
}

// preparePinned is the jobs of one (mode, algorithm) on target t (nil: unpinned), with the -multi the target
// asks for.
func (s *sweepState) preparePinned(openssl string, v *opensslVersion, mode, alg string, t *pinTarget) ([]sweepJob, []protocol.Skip, string) {
	var list []sweepJob
	var skips []protocol.Skip
	var why string
	if protocol.IsKCAPIMode(mode) {
		list, skips = s.prepareKcapiMode(mode, alg)
	} else if v != nil {
		plan := s.plan
		if t != nil && t.threads > 0 {
			s.plan.Threads = t.threads
		}
		list, why = s.prepareOpenSSL(openssl, *v, mode, alg)
		s.plan = plan
	}
	for i := range list {
		list[i].pin = t
	}
	return list, skips, why
}

// pinnedRun starts the record of one pinned run of j; nil when j is not pinned (its methods do nothing then).
func (s *sweepState) pinnedRun(j sweepJob) *pinnedRun {
	if j.pin == nil {
		return nil
	}
	r := &pinnedRun{target: *j.pin}
	if j.speed != nil {
		r.threads = j.pin.threads
	}
	return r
}

// measureJob is measureChild for j, pinned when j is.
func (s *sweepState) measureJob(ctx context.Context, j sweepJob, argv, env []string) (childResult, systemSample, systemSample, *pinnedRun) {
	pin := s.pinnedRun(j)
	if pin == nil {
		res, before, after := s.measureChild(ctx, argv, env)
		return res, before, after, nil
	}
	before, cpus := s.sampleSystem(), pin.sample(s.root)
	stderr := &boundedBuffer{max: maxChildOutput}
	res := runChildPinned(ctx, argv, env, nil, stderr, nil, pin)
	res.Stderr = stderr.String()
	pin.finish(s.root, cpus)
	return res, before, s.sampleSystem(), pin
}

// sample reads the per-CPU times before a pinned run.
func (r *pinnedRun) sample(root string) map[int]cpuTimes {
	if r == nil {
		return nil
	}
	return perCPUTimes(root)
}

// finish reads the per-CPU times after the run and keeps how busy the pinned CPUs and the others were.
func (r *pinnedRun) finish(root string, before map[int]cpuTimes) {
	if r == nil || before == nil {
		return
	}
	after := perCPUTimes(root)
	p, ok1 := busyOf(before, after, r.target.cpus, true)
	o, ok2 := busyOf(before, after, r.target.cpus, false)
	r.pinned, r.other, r.busyOK = p, o, ok1
	if !ok2 {
		r.other = 0
	}
	r.keepBusy(before, after)
}

// onThread runs fn (an in-process measurement: kcapi) on a thread pinned to the target, or as it is when r is
// nil.
func (r *pinnedRun) onThread(root string, fn func()) {
	if r == nil {
		fn()
		return
	}
	before := r.sample(root)
	status, ran, err := onPinnedThread(r.target.cpus, fn)
	if !ran {
		// measured unpinned so that the point says why it failed
		r.why = fmt.Sprintf("pin to %s: %v", protocol.FormatCPUList(r.target.cpus), err)
		fn()
	} else {
		r.checkAllowed(status, err)
	}
	r.finish(root, before)
}
