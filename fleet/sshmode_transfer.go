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
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/fleetlab/fleet/protocol"
)

// transferResult is one timed transfer through a cipherConn.
type transferResult struct {
	bytes         int64
	seconds       float64 // the controller's wall clock, from the first byte sent (or the go) to the last one
	controllerPct float64 // the controller process's user+sys CPU over the same span, 100 = one core; -1 unknown
	board         protocol.Transfer
}

// writeChunk is the size of the controller's writes into the channel: x/crypto/ssh cuts them into packets of the
// server's maximum (32 KiB for OpenSSH), so larger writes only save calls.
const writeChunk = 256 << 10

// upload streams n bytes into `agent ssh-sink n` on the board: the board decrypts. The clock starts when the agent
// says it is ready (its /proc/stat is sampled) and stops when its report arrives (it has read every byte).
func (c *cipherConn) upload(ctx context.Context, agent string, n int64) (transferResult, error) {
	s, err := c.session(ctx)
	if err != nil {
		return transferResult{}, err
	}
	defer s.close()
	stdin, err := s.StdinPipe()
	if err != nil {
		return transferResult{}, fmt.Errorf("upload: %w", err)
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		return transferResult{}, fmt.Errorf("upload: %w", err)
	}
	stderr := &tailWriter{max: 4096}
	s.Stderr = stderr
	if err := s.Start(shellQuote(agent) + " ssh-sink " + strconv.FormatInt(n, 10)); err != nil {
		return transferResult{}, c.lost(fmt.Errorf("upload: start agent: %w", err))
	}
	out := bufio.NewReader(stdout)
	if err := expectReady(out); err != nil {
		return transferResult{}, c.lost(withStderr(fmt.Errorf("upload: %w", err), stderr.String()))
	}
	cpu0 := processCPU()
	t0 := time.Now()
	buf := make([]byte, writeChunk)
	var sent int64
	for sent < n {
		k, err := stdin.Write(buf[:min(int64(len(buf)), n-sent)])
		sent += int64(k)
		if err != nil {
			return transferResult{}, c.lost(fmt.Errorf("upload: after %d of %d bytes: %w", sent, n, err))
		}
	}
	line, err := out.ReadBytes('\n')
	t1 := time.Now()
	cpu1 := processCPU()
	stdin.Close()
	if err != nil {
		return transferResult{}, c.lost(withStderr(fmt.Errorf("upload: waiting for the board's report: %w", err), stderr.String()))
	}
	rep, err := parseTransfer(line, n)
	if err != nil {
		return transferResult{}, fmt.Errorf("upload: %w", err)
	}
	s.Wait()
	return transferResult{bytes: n, seconds: t1.Sub(t0).Seconds(), controllerPct: cpuPct(cpu0, cpu1, t1.Sub(t0)),
		board: rep}, nil
}

// download reads n bytes from `agent ssh-source n` on the board: the board encrypts. The clock starts when the
// go byte is sent (the agent is ready and has sampled /proc/stat after it) and stops at the last byte.
func (c *cipherConn) download(ctx context.Context, agent string, n int64) (transferResult, error) {
	s, err := c.session(ctx)
	if err != nil {
		return transferResult{}, err
	}
	defer s.close()
	stdin, err := s.StdinPipe()
	if err != nil {
		return transferResult{}, fmt.Errorf("download: %w", err)
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		return transferResult{}, fmt.Errorf("download: %w", err)
	}
	stderrR, err := s.StderrPipe()
	if err != nil {
		return transferResult{}, fmt.Errorf("download: %w", err)
	}
	if err := s.Start(shellQuote(agent) + " ssh-source " + strconv.FormatInt(n, 10)); err != nil {
		return transferResult{}, c.lost(fmt.Errorf("download: start agent: %w", err))
	}
	ctl := bufio.NewReader(stderrR)
	if err := expectReady(ctl); err != nil {
		return transferResult{}, c.lost(fmt.Errorf("download: %w", err))
	}
	cpu0 := processCPU()
	t0 := time.Now()
	if _, err := stdin.Write([]byte{'g'}); err != nil {
		return transferResult{}, c.lost(fmt.Errorf("download: send go: %w", err))
	}
	got, err := io.CopyBuffer(io.Discard, io.LimitReader(stdout, n), make([]byte, writeChunk))
	t1 := time.Now()
	cpu1 := processCPU()
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return transferResult{}, c.lost(fmt.Errorf("download: after %d of %d bytes: %w", got, n, err))
	}
	stdin.Close()
	line, err := ctl.ReadBytes('\n')
	if err != nil {
		return transferResult{}, c.lost(fmt.Errorf("download: waiting for the board's report: %w", err))
	}
	rep, err := parseTransfer(line, n)
	if err != nil {
		return transferResult{}, fmt.Errorf("download: %w", err)
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

// lost names the connection's end when it is what broke the transfer: a cut link ends in a keepalive timeout,
// and that says more than the read error it caused.
func (c *cipherConn) lost(err error) error {
	if c.waitLost() {
		return fmt.Errorf("%w (%w)", err, c.lostErr())
	}
	return err
}

// transferSession is one session of a cipherConn that cancelling ctx closes.
type transferSession struct {
	*ssh.Session
	stop func() bool
	once sync.Once
}

func (c *cipherConn) session(ctx context.Context) (*transferSession, error) {
	if !c.alive() {
		return nil, c.lostErr()
	}
	s, err := c.client.NewSession()
	if err != nil {
		return nil, c.lost(fmt.Errorf("open session: %w", err))
	}
	ts := &transferSession{Session: s}
	// A blocked write or read returns when the session (and, on cancel, the whole connection) closes.
	ts.stop = context.AfterFunc(ctx, func() { c.SSHTransport.Close() })
	return ts, nil
}

func (s *transferSession) close() {
	s.once.Do(func() {
		s.stop()
		s.Close()
	})
}
