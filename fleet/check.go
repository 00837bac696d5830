package fleet

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// CheckOptions is `fleet boards check`: the boards and how to reach them.
type CheckOptions struct {
	Boards      []inventory.Board
	Concurrency int
	Dial        func(ctx context.Context, b inventory.Board) (Transport, error)
	Agent       func(ctx context.Context, arch string) (string, error)
	Logf        func(format string, args ...any)
}

// CheckResult is one board's readiness.
type CheckResult struct {
	Board   string
	Err     error      // the cause: unreachable, auth failed, host key mismatch, push failed, probe failed, no usable openssl
	Summary string     // arch, kernel, OpenSSL version
	Modes   ModeReport // what a run would measure (Available), what is not available and why; empty before the probe
	Deploy  string     // "pushed N bytes" or "agent already there"
	// Power is what the probe found to measure energy with (the hwmon rails, what a power source would read);
	// nil before the probe, and from agents and shell paths that do not look.
	Power  *protocol.PowerFacts
	Pushed int64
}

// Check connects to each board, detects its arch, deploys the agent and probes it, in parallel.
// Results are in the order of opts.Boards.
func Check(ctx context.Context, opts CheckOptions) []CheckResult {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	ro := RunOptions{Dial: opts.Dial, Agent: opts.Agent, Logf: opts.Logf}
	out := make([]CheckResult, len(opts.Boards))
	var g errgroup.Group
	g.SetLimit(concurrency(opts.Concurrency))
	for i, b := range opts.Boards {
		g.Go(func() error {
			out[i] = checkBoard(ctx, ro, b)
			return nil
		})
	}
	_ = g.Wait()
	return out
}

func checkBoard(ctx context.Context, opts RunOptions, b inventory.Board) CheckResult {
	r := CheckResult{Board: b.Name}
	t, err := connect(ctx, opts, b)
	if err != nil {
		r.Err = err
		return r
	}
	defer t.Close()
	var f *protocol.Facts
	shellWhy := ""
	if agentChoice(opts, b) == inventory.AgentShell {
		shellWhy = shellChosenReason(b)
	}
	if shellWhy == "" {
		// The session a run's start would open (measureWarm): on a board that has the agent, the deploy check
		// execs the agent's probe, which ends at the empty plan; the first check pushes it first. The probe
		// tests the engines of the board's own modes, and reads and refreshes the probe cache a run uses.
		deployedOK := false
		br := &boardRun{ctx: ctx, opts: opts, b: b, t: t} // no recorder: the probe only
		d, err := br.measureWarm(protocol.Plan{OpenSSL: b.OpenSSL, Env: b.Env, Modes: b.Modes},
			func(deployed) { deployedOK = true }, func(facts *protocol.Facts) (protocol.Plan, error) {
				f = facts
				return protocol.Plan{}, nil
			})
		if !deployedOK {
			if why := shellPathReason(err); why != "" && agentChoice(opts, b) == "" {
				shellWhy, err = why, nil
			}
		}
		if err != nil {
			r.Err = err
			return r
		}
		if shellWhy == "" {
			r.Pushed = d.pushed
			r.Deploy = fmt.Sprintf("pushed %d bytes", d.pushed)
			if d.pushed == 0 {
				r.Deploy = "agent already there, pushed 0 bytes"
			}
		}
	}
	if shellWhy != "" {
		// the shell path's probe, over the session a run would use; nothing pushed
		r.Deploy = "shell path, nothing pushed"
		if f, err = probeShell(ctx, t, b, shellWhy); err != nil {
			r.Err = fmt.Errorf("probe %s: %w", b.Name, err)
			return r
		}
	}
	r.Summary, r.Power = factsSummary(f), f.Power
	if shellWhy != "" {
		r.Summary += "; shell path: " + shellWhy
	}
	// A board whose run could measure nothing it would be asked to is not ready. The profile is not known
	// here: the board's own modes, else every mode the probe finds.
	modes := b.Modes
	if len(modes) == 0 {
		modes = planModes(f)
	}
	r.Modes = modeReport(f, modes, nil)
	if err := opensslProblem(f, modes); err != nil {
		r.Err = fmt.Errorf("%s: %w", b.Name, err)
	} else if err := nothingAvailable(r.Modes, modes); err != nil {
		r.Err = fmt.Errorf("%s: %w", b.Name, err)
	}
	return r
}
