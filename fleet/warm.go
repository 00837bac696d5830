package fleet

import (
	"errors"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// measureWarm measures the board with the agent: the deploy check, the probe and the sweep in one session when
// the board already has the agent (warmScript execs it), else the check, the push and its verification
// (deployFrom), then the probe and the sweep in a session of their own (measure). onDeployed is called once the
// agent is on the board, before its facts; an error returned before it was called is the deployment's. onFacts
// answers the facts with the plan to sweep (boards check's sweeps nothing). A plan that names its modes is sent
// right after the deploy request, so a warm board waits for no round trip of the controller's between the check
// and the sweep.
//
// A board whose arch comes from boards.toml is sent the request before it has said anything, so its agent
// starts before the controller has read the board's `uname -r`: a board whose kernel became too old for Go since
// its agent was pushed (pushing checks it) is stopped there and measured through the shell, as before.
func (r *boardRun) measureWarm(plan protocol.Plan, onDeployed func(deployed),
	onFacts func(*protocol.Facts) (protocol.Plan, error)) (deployed, error) {
	b := r.b
	if r.opts.Agent == nil {
		return deployed{}, fmt.Errorf("deploy to %s: no agent builder configured", b.Name)
	}
	logf := r.opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var w wantedAgent
	early := len(plan.Modes) > 0 && r.rec != nil // without a recorder (boards check) the plan only names what to probe
	s, st, failed, err := r.warmCheck(plan, early, &w)
	if err != nil {
		return failed, err
	}
	d := deployed{arch: b.Arch}
	if d.arch == "" {
		d.arch, _ = st.platform.archFor()
	}
	if st.execd {
		d.remote = st.home + "/.cache/fleet/" + agentName(w.sha)
		how := "verified on the board"
		if st.cached {
			how = "unchanged since it was verified"
		}
		logf("agent already on %s (sha256 %s), pushed 0 bytes (%s)", b.Name, w.sha[:12], how)
		onDeployed(d)
		return d, r.measureSession(s, plan, early, onFacts)
	}
	if err := s.end(); err != nil {
		return d, fmt.Errorf("deploy agent to %s: deploy check: %w", b.Name, err)
	}
	if st.home == "" {
		return d, fmt.Errorf("deploy agent to %s: deploy check: no $HOME printed", b.Name)
	}
	res, err := deployFrom(r.ctx, r.t, st, w.local, w.sha, w.size, b.Name, logf)
	if err != nil {
		return d, err
	}
	d.remote, d.pushed = res.RemotePath, res.Pushed
	onDeployed(d)
	return d, r.measure(d.remote, plan, onFacts)
}

// wantedAgent is the agent binary the deploy check asks the board for.
type wantedAgent struct {
	local string // its path on the host, to push when the board lacks it
	sha   string // its sha256, which names it on the board
	size  int64
}

// requestAgent is the deploy check's request for arch's agent, "NAME SHA256"; w is set to the binary it names.
func (r *boardRun) requestAgent(arch string, w *wantedAgent) (string, error) {
	l, err := r.opts.Agent(r.ctx, arch)
	if err != nil {
		return "", &agentError{arch: arch, err: fmt.Errorf("agent for %s (%s): %w", r.b.Name, arch, err)}
	}
	if w.sha, w.size, err = fileSHA256(l); err != nil {
		return "", fmt.Errorf("deploy agent to %s: %w", r.b.Name, err)
	}
	w.local = l
	return agentName(w.sha) + " " + w.sha, nil
}

// warmCheck starts measureWarm's session and reads its deploy check, sending the request for the agent of the
// board's arch (into w) as soon as the arch is known, and the plan right after it when early. An error ends the
// session; with it comes the deployed for measureWarm to return (the arch of an agent that could not be had).
func (r *boardRun) warmCheck(plan protocol.Plan, early bool, w *wantedAgent) (*agentSession, checkState,
	deployed, error) {
	b := r.b
	req := ""
	if b.Arch != "" {
		var err error
		if req, err = r.requestAgent(b.Arch, w); err != nil {
			return nil, checkState{}, deployed{}, err
		}
	}
	args := append([]string{"sh", "-c", warmScript, "sh", "measure"}, probeArgs(b, plan.Modes)...)
	args = append(args, algorithmsArgs(plan)...)
	s := startSession(r.ctx, r.t, Command{Args: args, Env: plan.Env})
	sendAll := func(req string) error {
		s.send(req)
		if early {
			return s.sendPlan(plan)
		}
		return nil
	}
	if req != "" {
		if err := sendAll(req); err != nil {
			s.end()
			return nil, checkState{}, deployed{}, err
		}
	}
	st, err := readCheck(s.out, req != "", func(p boardPlatform) error {
		if why := platformShellReason(p); why != "" {
			return &ShellPathError{Board: b.Name, Reason: why}
		}
		a, err := p.archFor()
		if err != nil {
			return fmt.Errorf("detect arch (uname -m): %w", err)
		}
		line, err := r.requestAgent(a, w)
		if err != nil {
			return err
		}
		return sendAll(line)
	})
	if err == nil && b.Arch != "" {
		if why := kernelShellReason(b.Arch, st.platform.kernel); why != "" {
			err = &ShellPathError{Board: b.Name, Reason: why}
		}
	}
	if err != nil {
		s.end()
		var ae *agentError
		if errors.As(err, &ae) {
			return nil, st, deployed{arch: ae.arch}, err
		}
		return nil, st, deployed{}, fmt.Errorf("deploy agent to %s: %w", b.Name, err)
	}
	return s, st, deployed{}, nil
}
