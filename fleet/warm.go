package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// measureWarm measures board b with the agent: the deploy check, the probe and the sweep in one session when the
// board already has the agent (warmScript execs it), else the check, the push and its verification (deployFrom),
// then the probe and the sweep in a session of their own (measure). onDeployed is called once the agent is on
// the board, before its facts; an error returned before it was called is the deployment's. A plan that names its
// modes is sent right after the deploy request, so a warm board waits for no round trip of the controller's
// between the check and the sweep.
//
// A board whose arch comes from boards.toml is sent the request before it has said anything, so its agent
// starts before the controller has read the board's `uname -r`: a board whose kernel became too old for Go since
// its agent was pushed (pushing checks it) is stopped there and measured through the shell, as before.
func measureWarm(ctx context.Context, opts RunOptions, b inventory.Board, t Transport, plan protocol.Plan,
	onDeployed func(deployed), onFacts func(*protocol.Facts) (protocol.Plan, error), rec *recorder,
	onPoint func(progressKey)) (deployed, error) {
	if opts.Agent == nil {
		return deployed{}, fmt.Errorf("deploy to %s: no agent builder configured", b.Name)
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var local, want string
	var size int64
	request := func(arch string) (string, error) {
		l, err := opts.Agent(ctx, arch)
		if err != nil {
			return "", &agentError{arch: arch, err: fmt.Errorf("agent for %s (%s): %w", b.Name, arch, err)}
		}
		if want, size, err = fileSHA256(l); err != nil {
			return "", fmt.Errorf("deploy agent to %s: %w", b.Name, err)
		}
		local = l
		return agentName(want) + " " + want, nil
	}
	req := ""
	if b.Arch != "" {
		var err error
		if req, err = request(b.Arch); err != nil {
			return deployed{}, err
		}
	}
	args := append([]string{"sh", "-c", warmScript, "sh", "measure"}, probeArgs(b, plan.Modes)...)
	args = append(args, algorithmsArgs(plan)...)
	s := startSession(ctx, t, Command{Args: args, Env: plan.Env})
	early := len(plan.Modes) > 0 && rec != nil // without a recorder (boards check) the plan only names what to probe
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
			return deployed{}, err
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
		line, err := request(a)
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
			return deployed{arch: ae.arch}, err
		}
		return deployed{}, fmt.Errorf("deploy agent to %s: %w", b.Name, err)
	}
	d := deployed{arch: b.Arch}
	if d.arch == "" {
		d.arch, _ = st.platform.archFor()
	}
	if st.execd {
		d.remote = st.home + "/.cache/fleet/" + agentName(want)
		how := "verified on the board"
		if st.cached {
			how = "unchanged since it was verified"
		}
		logf("agent already on %s (sha256 %s), pushed 0 bytes (%s)", b.Name, want[:12], how)
		onDeployed(d)
		return d, s.measure(ctx, b, plan, early, onFacts, rec, onPoint)
	}
	if err := s.end(); err != nil {
		return d, fmt.Errorf("deploy agent to %s: deploy check: %w", b.Name, err)
	}
	if st.home == "" {
		return d, fmt.Errorf("deploy agent to %s: deploy check: no $HOME printed", b.Name)
	}
	res, err := deployFrom(ctx, t, st, local, want, size, b.Name, logf)
	if err != nil {
		return d, err
	}
	d.remote, d.pushed = res.RemotePath, res.Pushed
	onDeployed(d)
	return d, measure(ctx, t, d.remote, b, plan, onFacts, rec, onPoint)
}
