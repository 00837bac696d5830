package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"
)

// fakeBoard is one simulated board: an in-process SSH server on 127.0.0.1 that runs every command the controller
// sends as a real sshd would, `/bin/sh -c LINE`, with its HOME a directory of its own. So the board follows the
// controller's deploy check, push and verification by what they do, whatever their text: the next change to the
// deploy path is exercised here as it is on a board. What is simulated is the agent: the controller is given
// fakeagent to push (main builds ./fakeagent with build, then padTo pads it to the real agent's size), which the
// deploy check verifies and execs like the real one, and which plays the sweep over the board's sweep duration
// without measuring anything.
type fakeBoard struct {
	name  string
	home  string
	ln    net.Listener
	cfg   *ssh.ServerConfig
	env   []string     // the shell's environment: HOME, PATH, the fake agent's FAKEBOARD_*
	stdin atomic.Int64 // bytes the controller sent on sessions' stdin: the agent pushed, requests and plans

	mu    sync.Mutex
	conns map[net.Conn]bool
	procs map[*os.Process]bool
	wg    sync.WaitGroup
}

// startBoard starts a board whose HOME is home (created 0755) and whose every sweep lasts sweep.
func startBoard(name, home string, cfg *ssh.ServerConfig, sweep time.Duration) (*fakeBoard, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LC_ALL=C", "USER=fleet", "LOGNAME=fleet",
		"SHELL=/bin/sh", "FAKEBOARD_NAME=" + name, "FAKEBOARD_SWEEP=" + sweep.String()}
	b := &fakeBoard{name: name, home: home, ln: ln, cfg: cfg, env: env, conns: map[net.Conn]bool{}, procs: map[*os.Process]bool{}}
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

func (b *fakeBoard) port() int { return b.ln.Addr().(*net.TCPAddr).Port }

func (b *fakeBoard) bytesReceived() int64 { return b.stdin.Load() }

// close stops the listener, every connection and every process still running, and waits for their goroutines.
func (b *fakeBoard) close() {
	b.ln.Close()
	b.mu.Lock()
	for c := range b.conns {
		c.Close()
	}
	for p := range b.procs {
		syscall.Kill(-p.Pid, syscall.SIGKILL)
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *fakeBoard) accept() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns[c] = true
		b.mu.Unlock()
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.serve(c)
			b.mu.Lock()
			delete(b.conns, c)
			b.mu.Unlock()
		}()
	}
}

func (b *fakeBoard) serve(c net.Conn) {
	defer c.Close()
	sc, chans, reqs, err := ssh.NewServerConn(c, b.cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs) // keepalive@openssh.com gets its (negative) reply
	var wg sync.WaitGroup
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.session(ch, creqs)
		}()
	}
	wg.Wait()
}

// session serves one channel: env requests are refused (as sshd's default AcceptEnv refuses them), exec runs
// its command, signals reach the command's process group.
func (b *fakeBoard) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			req.Reply(false, nil)
			continue
		}
		var p struct{ Command string }
		if err := ssh.Unmarshal(req.Payload, &p); err != nil {
			req.Reply(false, nil)
			return
		}
		cmd, err := b.start(ch, p.Command)
		if err != nil {
			req.Reply(false, nil)
			fmt.Fprintf(os.Stderr, "bench overhead: board %s: %v\n", b.name, err)
			return
		}
		req.Reply(true, nil)
		go b.signals(cmd.Process, reqs)
		code := b.wait(cmd)
		ch.CloseWrite()
		ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(code)}))
		return
	}
}

// start runs line in /bin/sh in a process group of its own, its stdin, stdout and stderr the channel's.
func (b *fakeBoard) start(ch ssh.Channel, line string) (*exec.Cmd, error) {
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir, cmd.Env = b.home, b.env
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second // a child left holding stdout must not hold the session
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start /bin/sh: %w", err)
	}
	if err := idle(cmd.Process.Pid); err != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		return nil, err
	}
	b.mu.Lock()
	b.procs[cmd.Process] = true
	b.mu.Unlock()
	go func() {
		// Ends when the channel's input does (the controller closed stdin or the session) or the command
		// exited (Wait closes the pipe). The shell sees EOF on its stdin as on any board.
		io.Copy(countingWriter{in, &b.stdin}, ch)
		in.Close()
	}()
	return cmd, nil
}

// wait waits for cmd and returns its exit status as sshd reports it (128+N for a signal N).
func (b *fakeBoard) wait(cmd *exec.Cmd) int {
	err := cmd.Wait()
	b.mu.Lock()
	delete(b.procs, cmd.Process)
	b.mu.Unlock()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 255
}

// signals delivers the controller's "signal" requests to the command's process group until the channel ends.
func (b *fakeBoard) signals(p *os.Process, reqs <-chan *ssh.Request) {
	names := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL,
		"HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2}
	for req := range reqs {
		ok := false
		if req.Type == "signal" {
			var s struct{ Signal string }
			if ssh.Unmarshal(req.Payload, &s) == nil {
				if sig, known := names[s.Signal]; known {
					ok = syscall.Kill(-p.Pid, sig) == nil
				}
			}
		}
		req.Reply(ok, nil)
	}
}

// agentDir is where the controller deploys its agent on the board (fleet/deploycheck.go: $HOME/.cache/fleet).
func (b *fakeBoard) agentDir() string { return filepath.Join(b.home, ".cache", "fleet") }

// countingWriter adds what it writes to n as it goes, so a count read at any time is up to date.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// idle puts the shell pid and what it starts from now on in SCHED_IDLE, below the simulator's own threads. Every
// board's shells and agents share the simulator's CPUs, as no board's do: at 2,000 boards the deploy checks start
// some 12,000 processes at once on one CPU, and the simulator's SSH servers, scheduled as one of 2,000 runnable
// processes, answered the controller's keepalives after more than 5 s, so the controller rightly declared half
// the boards lost. On a board sshd competes with that board's own few processes only; SCHED_IDLE gives the
// servers back that place. A command the shell forks before the call keeps the default policy (the shell runs
// once the simulator waits, so hardly any); the boards' CPU is the same either way, and reported apart.
func idle(pid int) error {
	if err := unix.SchedSetAttr(pid, &unix.SchedAttr{Policy: unix.SCHED_IDLE}, 0); err != nil {
		return fmt.Errorf("SCHED_IDLE for the board's shell %d: %w", pid, err)
	}
	return nil
}
