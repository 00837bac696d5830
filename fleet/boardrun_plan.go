package fleet

import (
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// planSweep is the board's sweep before the probe: the run's profile with the board's modes, prepared for
// valid points (validity.go) and verified before it is measured (verify.go). The shell path is chosen here when
// boards.toml says so; the deploy check may still choose it for a board the agent cannot run on.
func (r *boardRun) planSweep() {
	if agentChoice(r.opts, r.b) == inventory.AgentShell {
		r.shellWhy = shellChosenReason(r.b)
	}
	r.plan = boardPlan(r.opts, r.b)
	preparePlan(&r.plan, r.opts, r.b)
	verifyPlan(&r.plan, r.opts.VerifyThreads)
	r.rec.verifying = true
}

// onFacts takes the board's facts from its probe (the agent's or the shell path's), stores them, settles the
// plan's modes and returns what the agent or the shell path is to sweep; mode ssh is the controller's.
func (r *boardRun) onFacts(f *protocol.Facts) (protocol.Plan, error) {
	r.endPhase()
	if err := unknownAlgorithms(r.b.Name, f); err != nil {
		return r.plan, err // before the facts are stored: the board's part of the run is dropped
	}
	r.facts = f
	r.rec.kernel.setFacts(f)
	r.out.Summary = factsSummary(r.facts)
	addSSHModeFact(r.facts, r.plan.Modes, r.t) // mode ssh is the controller's, not the probe's
	if r.shellWhy != "" {
		markShellModes(r.facts, r.shellWhy)
		r.out.Summary += "; shell path: " + r.shellWhy
	}
	if err := r.rec.facts(r.ctx, *r.facts); err != nil {
		return r.plan, err
	}
	if len(r.plan.Modes) == 0 {
		r.plan.Modes = planModes(r.facts)
	}
	r.modesKnown = true

	// Progress counts what will be measured: a mode the probe found unavailable is one skip, not a run of slots.
	r.rec.unavailable = unavailableModes(r.facts)
	// Mode ssh is measured by the controller after the agent's sweep (mode_ssh.go).
	r.agentSweep = agentPlan(r.plan)
	r.sshSweep = sshPlan(r.plan, r.opts.TransferSizes)
	r.total = plannedPoints(withoutModes(r.agentSweep, r.rec.unavailable)) + sshSlots(r.sshSweep, r.rec.unavailable)
	r.event(Event{Stage: StageSweep, Total: r.total})
	r.endPhase = r.opts.Trace.Phase(r.b.Name, "sweep")
	return r.agentSweep, nil
}

// onPoint reports the sweep's progress after each point.
func (r *boardRun) onPoint(p progressKey) {
	r.event(Event{Stage: StageSweep, Done: r.rec.done(), Total: r.total, Mode: p.mode, Algorithm: p.alg, Size: p.size})
}

// probing starts the probe's phase, once the agent is on the board or the shell path is chosen.
func (r *boardRun) probing() {
	r.event(Event{Stage: StageProbe})
	r.endPhase = r.opts.Trace.Phase(r.b.Name, "probe")
}
