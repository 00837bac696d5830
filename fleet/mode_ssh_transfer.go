package fleet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// transferResult is one timed transfer through a cipher connection.
type transferResult struct {
	bytes         int64
	seconds       float64 // the controller's wall clock, from the first byte sent (or the go) to the last one
	controllerPct float64 // the controller process's user+sys CPU over the same span, 100 = one core; -1 unknown
	board         protocol.Transfer
}

// writeChunk is the size of the controller's writes into the channel: x/crypto/ssh cuts them into packets of the
// server's maximum (32 KiB for OpenSSH), so larger writes only save calls.
const writeChunk = 256 << 10

// transferPipes are the ends of a transfer session: the agent's stdin and stdout, and ctl, the reader of the lines
// it reports on (its stdout for ssh-sink, which reads the data from stdin; its stderr for ssh-source, whose stdout
// is the data). stderr keeps the tail of ssh-sink's stderr for messages; nil for ssh-source.
type transferPipes struct {
	stdin  io.WriteCloser
	stdout io.Reader
	ctl    *bufio.Reader
	stderr *tailWriter
}

// stderrOf adds the tail of the agent's stderr to err, where there is one.
func (p transferPipes) stderrOf(err error) error {
	if p.stderr == nil {
		return err
	}
	return withStderr(err, p.stderr.String())
}

// startTransfer opens a session, starts `agent CMD n` (ssh-sink or ssh-source) and waits for its ready line: the
// agent has sampled /proc/stat, and the clock may start. op names the transfer in errors.
func startTransfer(ctx context.Context, c *sshtransport.CipherConn, op, agent, cmd string,
	n int64) (*sshtransport.CipherSession, transferPipes, error) {
	var p transferPipes
	s, err := c.Session(ctx)
	if err != nil {
		return nil, p, err
	}
	fail := func(err error) (*sshtransport.CipherSession, transferPipes, error) {
		s.Close()
		return nil, p, err
	}
	if p.stdin, err = s.StdinPipe(); err != nil {
		return fail(fmt.Errorf("%s: %w", op, err))
	}
	if p.stdout, err = s.StdoutPipe(); err != nil {
		return fail(fmt.Errorf("%s: %w", op, err))
	}
	if cmd == "ssh-source" {
		stderr, err := s.StderrPipe()
		if err != nil {
			return fail(fmt.Errorf("%s: %w", op, err))
		}
		p.ctl = bufio.NewReader(stderr)
	} else {
		p.stderr = &tailWriter{Max: 4096}
		s.Stderr = p.stderr
		p.ctl = bufio.NewReader(p.stdout)
	}
	if err := s.Start(shellQuote(agent) + " " + cmd + " " + strconv.FormatInt(n, 10)); err != nil {
		return fail(c.Lost(fmt.Errorf("%s: start agent: %w", op, err)))
	}
	if err := expectReady(p.ctl); err != nil {
		return fail(c.Lost(p.stderrOf(fmt.Errorf("%s: %w", op, err))))
	}
	return s, p, nil
}

// upload streams n bytes into `agent ssh-sink n` on the board: the board decrypts. The clock starts when the agent
// says it is ready (its /proc/stat is sampled) and stops when its report arrives (it has read every byte).
func upload(ctx context.Context, c *sshtransport.CipherConn, agent string, n int64) (transferResult, error) {
	s, p, err := startTransfer(ctx, c, "upload", agent, "ssh-sink", n)
	if err != nil {
		return transferResult{}, err
	}
	defer s.Close()
	cpu0 := processCPU()
	t0 := time.Now()
	buf := make([]byte, writeChunk)
	var sent int64
	for sent < n {
		k, err := p.stdin.Write(buf[:min(int64(len(buf)), n-sent)])
		sent += int64(k)
		if err != nil {
			return transferResult{}, c.Lost(fmt.Errorf("upload: after %d of %d bytes: %w", sent, n, err))
		}
	}
	line, err := p.ctl.ReadBytes('\n')
	t1 := time.Now()
	cpu1 := processCPU()
	p.stdin.Close()
	if err != nil {
		return transferResult{}, c.Lost(p.stderrOf(fmt.Errorf("upload: waiting for the board's report: %w", err)))
	}
	return finishTransfer(s, "upload", line, n, t0, t1, cpu0, cpu1)
}

// download reads n bytes from `agent ssh-source n` on the board: the board encrypts. The clock starts when the
// go byte is sent (the agent is ready and has sampled /proc/stat after it) and stops at the last byte.
func download(ctx context.Context, c *sshtransport.CipherConn, agent string, n int64) (transferResult, error) {
	s, p, err := startTransfer(ctx, c, "download", agent, "ssh-source", n)
	if err != nil {
		return transferResult{}, err
	}
	defer s.Close()
	cpu0 := processCPU()
	t0 := time.Now()
	if _, err := p.stdin.Write([]byte{'g'}); err != nil {
		return transferResult{}, c.Lost(fmt.Errorf("download: send go: %w", err))
	}
	got, err := io.CopyBuffer(io.Discard, io.LimitReader(p.stdout, n), make([]byte, writeChunk))
	t1 := time.Now()
	cpu1 := processCPU()
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return transferResult{}, c.Lost(fmt.Errorf("download: after %d of %d bytes: %w", got, n, err))
	}
	p.stdin.Close()
	line, err := p.ctl.ReadBytes('\n')
	if err != nil {
		return transferResult{}, c.Lost(fmt.Errorf("download: waiting for the board's report: %w", err))
	}
	return finishTransfer(s, "download", line, n, t0, t1, cpu0, cpu1)
}

// finishTransfer reads the board's report line of a transfer timed from t0 to t1 and waits for the agent's exit.
func finishTransfer(s *sshtransport.CipherSession, op string, line []byte, n int64, t0, t1 time.Time,
	cpu0, cpu1 time.Duration) (transferResult, error) {
	rep, err := parseTransfer(line, n)
	if err != nil {
		return transferResult{}, fmt.Errorf("%s: %w", op, err)
	}
	s.Wait()
	return transferResult{bytes: n, seconds: t1.Sub(t0).Seconds(), controllerPct: cpuPct(cpu0, cpu1, t1.Sub(t0)),
		board: rep}, nil
}

func expectReady(r *bufio.Reader) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("waiting for the agent to be ready: %w", err)
	}
	if strings.TrimSpace(line) != "ready" {
		return fmt.Errorf("agent said %q, want ready (an agent from before mode ssh?)", strings.TrimSpace(line))
	}
	return nil
}

func parseTransfer(line []byte, n int64) (protocol.Transfer, error) {
	var rep protocol.Transfer
	if err := json.Unmarshal(bytes.TrimSpace(line), &rep); err != nil {
		return rep, fmt.Errorf("board's transfer report %q: %w", bytes.TrimSpace(line), err)
	}
	if rep.Error != "" {
		return rep, fmt.Errorf("board: %s", rep.Error)
	}
	if err := rep.Validate(); err != nil {
		return rep, err
	}
	if rep.Bytes != n {
		return rep, fmt.Errorf("board moved %d bytes, want %d", rep.Bytes, n)
	}
	return rep, nil
}
