package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/fleetlab/fleet/protocol"
)

// mainMeasure is `fleet-agent measure [probe flags]`: the probe and the sweep in one session, so that a board
// costs the controller one SSH session (each costs round trips) for both, and the board one probe. It prints
// hello and the probe's facts, then reads the plan (one JSON line) on stdin and sweeps it as `sweep` does,
// reusing the probe. The controller may send the plan at once when it does not need the facts to write it; EOF
// instead of a plan ends the session after the facts (a probe alone).
func mainMeasure(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseProbeArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "measure: %v\nusage: fleet-agent measure [--openssl PATH] [--engines a,b] [--providers p,q] [--algorithms x,y] [--timeout 10s] < plan.json\n", err)
		return 2
	}
	enc := protocol.NewEncoder(stdout)
	if err := enc.Encode(protocol.TypeHello, hello()); err != nil {
		fmt.Fprintf(stderr, "measure: write: %v\n", err)
		return 1
	}
	p := &probed{pre: sampleEvidence(""), opts: opts}
	p.facts, p.opensslPath, p.version = probeFacts(ctx, opts)
	if err := enc.Encode(protocol.TypeFacts, &p.facts); err != nil {
		fmt.Fprintf(stderr, "measure: write: %v\n", err)
		return 1
	}
	in := bufio.NewReaderSize(stdin, 64<<10)
	if _, err := in.Peek(1); errors.Is(err, io.EOF) {
		// a probe alone: the controller wanted the facts only
		if err := enc.Encode(protocol.TypeDone, &protocol.Done{}); err != nil {
			return 1
		}
		return 0
	}
	plan, err := readPlan(in)
	if err != nil {
		enc.Encode(protocol.TypeError, err.Error())
		enc.Encode(protocol.TypeDone, &protocol.Done{})
		return 1
	}
	if len(p.facts.UnknownAlgorithms) > 0 {
		// the controller refuses the board on these facts: measure nothing, not even the plan's first point
		enc.Encode(protocol.TypeError, "plan refused: the probe found algorithms openssl does not have")
		enc.Encode(protocol.TypeDone, &protocol.Done{})
		return 1
	}
	if !probedWithEnv(plan.Env) {
		p = nil // the probe did not run in the plan's environment: the sweep probes again
	}
	return sweepSession(ctx, plan, in, enc, stderr, p)
}

// probedWithEnv reports whether this process's environment, which the probe's commands inherited, has env.
func probedWithEnv(env map[string]string) bool {
	for k, v := range env {
		if got, ok := os.LookupEnv(k); !ok || got != v {
			return false
		}
	}
	return true
}

// sameProbe reports whether a probe made with a answers what a probe with b would ask: the same openssl, engines
// and providers. (The environment is checked by the caller, and the timeout changes no fact.)
func sameProbe(a, b ProbeOptions) bool {
	name := func(s string) string {
		if s == "" {
			return "openssl"
		}
		return s
	}
	return name(a.OpenSSL) == name(b.OpenSSL) && slices.Equal(a.Engines, b.Engines) &&
		slices.Equal(a.Providers, b.Providers) && slices.Equal(a.KCAPI, b.KCAPI) && a.Root == b.Root
}
