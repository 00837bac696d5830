package fleet

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/fleetlab/fleet/inventory"
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
	Pushed  int64
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
	d, err := deployAgent(ctx, opts, b, t)
	if err != nil {
		r.Err = err
		return r
	}
	r.Pushed = d.pushed
	r.Deploy = fmt.Sprintf("pushed %d bytes", d.pushed)
	if d.pushed == 0 {
		r.Deploy = "agent already there, pushed 0 bytes"
	}
	f, err := probe(ctx, t, d.remote, b, b.Modes)
	if err != nil {
		r.Err = fmt.Errorf("probe %s: %w", b.Name, err)
		return r
	}
	r.Summary = factsSummary(f)
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
