package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// measure runs `agent measure`: the probe and the sweep in one session, and one probe on the board (issue 17).
// The agent prints its facts, which go to onFacts (it stores them and returns the plan, its modes filled from the
// facts when plan has none), then sweeps the plan it reads on stdin. A plan that names its modes is sent at once,
// before the facts arrive, so the sweep starts without waiting a round trip. Stdin stays open until the sweep
// ends or ctx is cancelled: the agent stops and kills its openssl children when its stdin closes. Errors name
// the phase: "probe BOARD: …" before the facts, "sweep BOARD: …" after; onFacts' own are returned as they are.
func measure(ctx context.Context, t Transport, remote string, b inventory.Board, plan protocol.Plan,
	onFacts func(*protocol.Facts) (protocol.Plan, error), rec *recorder, onPoint func(progressKey)) error {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	stderr := &tailWriter{max: 4096}
	runErr := make(chan error, 1)
	go func() {
		err := t.Run(ctx, Command{Args: append(append([]string{remote, "measure"}, probeArgs(b, plan.Modes)...), algorithmsArgs(plan)...), Env: plan.Env,
			Stdin: stdinR, Stdout: stdoutW, Stderr: stderr})
		stdoutW.CloseWithError(io.EOF)
		stdinR.CloseWithError(io.ErrClosedPipe) // a plan nobody reads any more must not block
		runErr <- err
	}()
	var closeOnce sync.Once
	closeStdin := func() { closeOnce.Do(func() { stdinW.Close() }) }
	defer closeStdin()
	planc := make(chan []byte, 1)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case line := <-planc:
			if _, err := stdinW.Write(line); err != nil {
				return
			}
		case <-ctx.Done():
			closeStdin()
			return
		case <-finished:
			return
		}
		select {
		case <-ctx.Done():
			closeStdin()
		case <-finished:
		}
	}()
	send := func(p protocol.Plan) error {
		j, err := json.Marshal(p)
		if err != nil {
			return fmt.Errorf("encode plan: %w", err)
		}
		planc <- append(j, '\n')
		return nil
	}
	// end stops the session and returns its error, with the tail of stderr.
	end := func() error {
		closeStdin()
		stdoutR.CloseWithError(io.EOF) // unblock the transport if we stopped reading early
		if err := <-runErr; err != nil {
			return withStderr(err, stderr.String())
		}
		return nil
	}
	early := len(plan.Modes) > 0
	if early {
		if err := send(plan); err != nil {
			end()
			return err
		}
	}

	dec := protocol.NewDecoder(stdoutR)
	facts, err := readFacts(dec)
	if err != nil {
		if rerr := end(); rerr != nil && errors.Is(err, errNoFacts) {
			err = rerr // the agent's exit and stderr say more than a missing line
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("probe %s: %w", b.Name, err)
	}
	final, err := onFacts(facts)
	if err != nil {
		end()
		return err
	}
	if len(final.Modes) == 0 {
		// Nothing for the agent to sweep (a run of mode ssh only, which the controller measures): EOF on stdin
		// ends the agent after its probe. Read what it still prints until it exits: closing its stdout first
		// would fail the session ("its output could not be written").
		closeStdin()
		_, _ = io.Copy(io.Discard, stdoutR)
		if err := end(); err != nil {
			return fmt.Errorf("probe %s: %w", b.Name, err)
		}
		return nil
	}
	if !early {
		if err := send(final); err != nil {
			end()
			return err
		}
	}

	var agentErrs []string
	streamErr := consume(ctx, dec, final, rec, onPoint, &agentErrs)
	err = end()
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case streamErr != nil && errors.Is(err, ErrConnectionLost):
		// the link, not the agent, ended the stream
	case streamErr != nil:
		err = streamErr
	case err != nil:
	case len(agentErrs) > 0:
		err = fmt.Errorf("%d agent error(s): %s", len(agentErrs), strings.Join(agentErrs, "; "))
	}
	if err != nil {
		return fmt.Errorf("sweep %s: %w", b.Name, err)
	}
	return nil
}

// errNoFacts is the agent's output ending before its facts.
var errNoFacts = errors.New("agent printed no facts")

// readFacts reads the agent's lines up to its facts.
func readFacts(dec *protocol.Decoder) (*protocol.Facts, error) {
	for {
		m, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return nil, errNoFacts
		}
		if err != nil {
			return nil, err
		}
		if m.Facts != nil {
			return m.Facts, nil
		}
		if m.Type == protocol.TypeError {
			return nil, errors.New(m.Error)
		}
	}
}
