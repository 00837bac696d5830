package fleet

import (
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// measureAgent measures the board with the agent. A board with the agent costs one session: the deploy check,
// then the agent's probe and sweep of the plan it is sent (none when the run asked only for mode ssh), on one
// stdin and stdout (warm.go). deployedOK says whether the agent got onto the board: an error without it is the
// deployment's. A deploy check that finds a board the agent cannot run on sends it down the shell path instead
// (r.shellWhy set, no error), unless boards.toml chose the agent.
func (r *boardRun) measureAgent() (deployedOK bool, err error) {
	r.event(Event{Stage: StageDeploy})
	r.endPhase = r.opts.Trace.Phase(r.b.Name, "deploy")
	r.deployed, err = r.measureWarm(agentPlan(r.plan), func(d deployed) {
		deployedOK = true
		r.endPhase()
		r.out.Arch, r.out.Pushed = d.arch, d.pushed
		msg := fmt.Sprintf("agent %s, pushed %d bytes", d.remote, d.pushed)
		if d.pushed == 0 {
			msg = fmt.Sprintf("agent %s already there, pushed 0 bytes", d.remote)
		}
		r.event(Event{Stage: StageDeploy, Msg: msg})
		r.probing()
	}, r.onFacts)
	if !deployedOK {
		r.endPhase()
		if why := shellPathReason(err); why != "" && agentChoice(r.opts, r.b) == "" {
			r.shellWhy, err = why, nil
		}
	}
	return deployedOK, err
}

// measureShellPath measures the board through its own shell and openssl (shellpath.go): nothing is pushed, and
// the summary says why.
func (r *boardRun) measureShellPath() error {
	r.out.Arch = "shell"
	r.event(Event{Stage: StageDeploy, Msg: "shell path, nothing pushed: " + r.shellWhy})
	r.probing()
	return r.measureShell(agentPlan(r.plan), r.onFacts)
}

// measureModeSSH measures mode ssh once the agent's sweep is done (mode_ssh.go). A board measured through its
// shell has no agent to send into and out of: mode ssh is one skip with that reason.
func (r *boardRun) measureModeSSH() error {
	if r.shellWhy != "" {
		skip := protocol.Skip{Mode: protocol.ModeSSH, Reason: shellNeedsAgent("mode ssh", r.shellWhy)}
		return r.rec.skip(r.ctx, skip, *r.sshSweep)
	}
	return r.measureSSH()
}
