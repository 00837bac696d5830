package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/transport"
)

// measure runs `agent measure`: the probe and the sweep in one session, and one probe on the board.
// The agent prints its facts, which go to onFacts (it stores them and returns the plan, its modes filled from the
// facts when plan has none), then sweeps the plan it reads on stdin. A plan that names its modes is sent at once,
// before the facts arrive, so the sweep starts without waiting a round trip. Stdin stays open until the sweep
// ends or the board's context is cancelled: the agent stops and kills its openssl children when its stdin
// closes. Errors name the phase: "probe BOARD: …" before the facts, "sweep BOARD: …" after; onFacts' own are
// returned as they are.
func (r *boardRun) measure(remote string, plan protocol.Plan,
	onFacts func(*protocol.Facts) (protocol.Plan, error)) error {
	args := append(append([]string{remote, "measure"}, probeArgs(r.b, plan.Modes)...), algorithmsArgs(plan)...)
	args = append(args, "--probe-cache", path.Dir(remote)) // the agent's private directory (deployScript)
	s := startSession(r.ctx, r.t, Command{Args: args, Env: plan.Env})
	early := len(plan.Modes) > 0 && r.rec != nil // without a recorder (boards check) the plan only names what to probe
	if early {
		if err := s.sendPlan(plan); err != nil {
			s.end()
			return err
		}
	}
	return r.measureSession(s, plan, early, onFacts)
}

// agentSession is one session whose stdin takes lines in order (a deploy request, a plan) and whose stdout
// carries the agent's protocol lines, possibly after the deploy check's.
type agentSession struct {
	ctx    context.Context
	out    *bufio.Reader
	stderr *tailWriter
	lines  chan []byte // to stdin, in order
	runErr chan error

	stdoutR   *io.PipeReader
	closeOnce sync.Once
	stdinW    *io.PipeWriter
	finished  chan struct{}
	endOnce   sync.Once
	endErr    error
}

// startSession starts cmd with its stdin fed from the session's lines until the session ends or ctx is
// cancelled.
func startSession(ctx context.Context, t Transport, cmd Command) *agentSession {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	s := &agentSession{ctx: ctx, stderr: &tailWriter{Max: 4096}, lines: make(chan []byte, 2), runErr: make(chan error, 1),
		stdoutR: stdoutR, stdinW: stdinW, finished: make(chan struct{}), out: bufio.NewReaderSize(stdoutR, 512)}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, s.stderr
	go func() {
		err := t.Run(ctx, cmd)
		stdoutW.CloseWithError(io.EOF)
		stdinR.CloseWithError(io.ErrClosedPipe) // a plan nobody reads any more must not block
		s.runErr <- err
	}()
	go func() {
		// Not in the caller's goroutine: a transport may write all its output before it reads any input.
		for {
			select {
			case line := <-s.lines:
				if _, err := stdinW.Write(line); err != nil {
					return
				}
			case <-ctx.Done():
				s.closeStdin()
				return
			case <-s.finished:
				return
			}
		}
	}()
	return s
}

func (s *agentSession) closeStdin() { s.closeOnce.Do(func() { s.stdinW.Close() }) }

// send queues a line for stdin.
func (s *agentSession) send(line string) { s.lines <- []byte(line + "\n") }

func (s *agentSession) sendPlan(p protocol.Plan) error {
	j, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	s.send(string(j))
	return nil
}

// end stops the session and returns its error, with the tail of stderr.
func (s *agentSession) end() error {
	s.endOnce.Do(func() {
		s.closeStdin()
		s.stdoutR.CloseWithError(io.EOF) // unblock the transport if we stopped reading early
		if err := <-s.runErr; err != nil {
			s.endErr = withStderr(err, s.stderr.String())
		}
		close(s.finished)
	})
	return s.endErr
}

// measureSession reads the agent's facts and sweep from session s; sent says the plan is on its way already.
func (r *boardRun) measureSession(s *agentSession, plan protocol.Plan, sent bool,
	onFacts func(*protocol.Facts) (protocol.Plan, error)) error {
	ctx, b := r.ctx, r.b
	defer s.end()
	dec := protocol.NewDecoder(s.out)
	facts, err := readFacts(dec)
	if err != nil {
		if rerr := s.end(); rerr != nil && errors.Is(err, errNoFacts) {
			err = rerr // the agent's exit and stderr say more than a missing line
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("probe %s: %w", b.Name, err)
	}
	final, err := onFacts(facts)
	if err != nil {
		return err
	}
	if len(final.Modes) == 0 {
		// Nothing for the agent to sweep (a run of mode ssh only, which the controller measures): EOF on stdin
		// ends the agent after its probe. Read what it still prints until it exits: closing its stdout first
		// would fail the session ("its output could not be written").
		s.closeStdin()
		_, _ = io.Copy(io.Discard, s.out)
		if err := s.end(); err != nil {
			return fmt.Errorf("probe %s: %w", b.Name, err)
		}
		return nil
	}
	if !sent {
		if err := s.sendPlan(final); err != nil {
			return err
		}
	}

	var agentErrs []string
	streamErr := consume(ctx, dec, final, r.rec, r.onPoint, &agentErrs)
	err = s.end()
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case streamErr != nil && errors.Is(err, transport.ErrConnectionLost):
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
			capFacts(m.Facts)
			return m.Facts, nil
		}
		if m.Type == protocol.TypeError {
			return nil, errors.New(m.Error)
		}
	}
}
