package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// The shell path measures a board the Go agent cannot run on: an architecture without a Go port (big-endian ARM,
// 32-bit PowerPC, SuperH…), a kernel older than Go's minimum, or a board whose boards.toml says agent = "shell".
// Nothing is pushed. One SSH session runs `sh -s`; the controller sends it the probe, then one request per openssl
// run, and the agent package's own sweep (agent.RemoteSweep) decides what runs when and makes the points, so that
// both paths store the same schema from the same logic. What only the agent can do is a skip with its reason:
// kcapi (the agent's AF_ALG benchmark), mode ssh (the agent's sink and source), provider probes, setting the
// governor and waiting for a quiet board.

// agentChoice is what boards.toml says of how to measure b: the board's (or [defaults]') agent key, else the
// profile's; "" lets the board's uname decide.
func agentChoice(opts RunOptions, b inventory.Board) string {
	if b.Agent != "" {
		return b.Agent
	}
	return opts.Sweep.Agent
}

// shellChosenReason is the reason recorded for a board boards.toml sends down the shell path.
func shellChosenReason(b inventory.Board) string {
	if b.Agent == inventory.AgentShell {
		return `boards.toml says agent = "shell"`
	}
	return `the profile says agent = "shell"`
}

// shellNeedsAgent is the reason of the modes only the agent measures.
func shellNeedsAgent(mode, why string) string {
	return fmt.Sprintf("%s needs the agent, and the board is measured through its shell (%s)", mode, why)
}

// markShellModes makes the controller's modes that need the agent on the board unavailable: mode ssh.
func markShellModes(f *protocol.Facts, why string) {
	for i, m := range f.Modes {
		if m.Mode == protocol.ModeSSH && m.Available {
			f.Modes[i].Available, f.Modes[i].Reason = false, shellNeedsAgent("mode ssh", why)
		}
	}
}

// measureShell is measure for the shell path: the probe and the sweep over one session of the board's shell,
// with the same onFacts, recorder and progress as the agent's, and r.shellWhy as the reason of what only the
// agent measures.
func (r *boardRun) measureShell(plan protocol.Plan,
	onFacts func(*protocol.Facts) (protocol.Plan, error)) (err error) {
	ctx, b, why := r.ctx, r.b, r.shellWhy
	s, err := startShell(ctx, r.t, b.Name)
	if err != nil {
		return fmt.Errorf("probe %s: %w", b.Name, err)
	}
	defer func() {
		if cerr := s.close(); cerr != nil && err == nil && ctx.Err() == nil {
			err = fmt.Errorf("sweep %s: end the shell session: %w", b.Name, cerr)
		}
	}()
	probe, err := s.probe(ctx, plan, why)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("probe %s: %w", b.Name, err)
	}
	facts := agent.RemoteFacts(probe, plan)
	capFacts(&facts)
	final, err := onFacts(&facts)
	if err != nil {
		return err
	}
	if len(final.Modes) == 0 {
		return nil
	}
	pr, pw := io.Pipe()
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		enc := protocol.NewEncoder(pw)
		done, err := agent.RemoteSweep(ctx, final, enc, probe, s)
		if err != nil {
			_ = enc.Encode(protocol.TypeError, err.Error())
		}
		_ = enc.Encode(protocol.TypeDone, &done)
		pw.Close()
	}()
	var sweepErrs []string
	streamErr := consume(ctx, protocol.NewDecoder(pr), final, r.rec, r.onPoint, &sweepErrs)
	pr.CloseWithError(io.ErrClosedPipe) // a sweep still writing stops at its next line
	<-swept
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case streamErr != nil:
		err = streamErr
	case len(sweepErrs) > 0:
		err = fmt.Errorf("%d error(s) on the board: %s", len(sweepErrs), strings.Join(sweepErrs, "; "))
	}
	if err != nil {
		return fmt.Errorf("sweep %s: %w", b.Name, err)
	}
	return nil
}

// shellPathReason says, from a deploy error, why the board goes down the shell path; "" when it does not.
func shellPathReason(err error) string {
	var sp *ShellPathError
	if errors.As(err, &sp) {
		return sp.Reason
	}
	return ""
}

// probeShell is the shell path's probe alone (fleet boards check): one session, the facts, no sweep.
func probeShell(ctx context.Context, t Transport, b inventory.Board, why string) (*protocol.Facts, error) {
	s, err := startShell(ctx, t, b.Name)
	if err != nil {
		return nil, err
	}
	defer s.close()
	plan := protocol.Plan{OpenSSL: b.OpenSSL, Env: b.Env, Modes: b.Modes}
	p, err := s.probe(ctx, plan, why)
	if err != nil {
		return nil, err
	}
	f := agent.RemoteFacts(p, plan)
	capFacts(&f)
	return &f, nil
}
