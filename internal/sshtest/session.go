package sshtest

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// signals maps SSH signal names (RFC 4254 6.9) to the ones delivered to the command's process group.
var signals = map[string]syscall.Signal{
	"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP,
	"QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "ALRM": syscall.SIGALRM,
}

// session serves one session channel: env, exec and signal requests. Like sshd without a pty, closing the
// channel does not kill the command; Server.Close does.
func (s *Server) session(nch ssh.NewChannel, c *faultConn) {
	ch, reqs, err := nch.Accept()
	if err != nil {
		return
	}
	defer ch.Close()
	var (
		env     []string
		pgid    int
		started bool
		exited  = make(chan struct{})
	)
	for req := range reqs {
		switch req.Type {
		case "env":
			var kv struct{ Name, Value string }
			if ssh.Unmarshal(req.Payload, &kv) == nil {
				env = append(env, kv.Name+"="+kv.Value)
			}
			req.Reply(true, nil)
		case "exec":
			var p struct{ Command string }
			if started || ssh.Unmarshal(req.Payload, &p) != nil {
				req.Reply(false, nil)
				continue
			}
			replied := make(chan struct{})
			pgid, err = s.exec(ch, c, p.Command, env, replied, exited)
			// The exit status must not overtake this reply: a client whose exec is not yet answered when the
			// channel closes sees EOF.
			req.Reply(err == nil, nil)
			close(replied)
			if err != nil {
				s.logf("exec %q: %v", p.Command, err)
				return
			}
			started = true
		case "signal":
			var p struct{ Signal string }
			var sig syscall.Signal
			ok := ssh.Unmarshal(req.Payload, &p) == nil
			if ok {
				sig, ok = signals[p.Signal]
			}
			ok = ok && started && !s.options().IgnoreSignals
			if ok {
				s.logf("signal %s to process group %d", p.Signal, pgid)
				syscall.Kill(-pgid, sig)
			}
			req.Reply(ok, nil)
		default:
			req.Reply(false, nil)
		}
	}
	if started {
		<-exited
	}
}

// exec starts command under /bin/sh -c in its own process group, wired to the channel; when it exits, its exit
// status (or signal) is sent and the channel closed.
func (s *Server) exec(ch ssh.Channel, c *faultConn, command string, env []string, replied <-chan struct{},
	exited chan<- struct{}) (int, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = &dropWriter{w: ch, s: s, c: c}
	cmd.Stderr = ch.Stderr()
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, errors.New("server closed")
	}
	if err := cmd.Start(); err != nil {
		s.mu.Unlock()
		return 0, err
	}
	pgid := cmd.Process.Pid
	s.procs[pgid] = struct{}{}
	s.wg.Add(2)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		io.Copy(stdin, ch)
		stdin.Close()
	}()
	go func() {
		defer s.wg.Done()
		defer close(exited)
		cmd.Wait()
		s.mu.Lock()
		delete(s.procs, pgid)
		s.mu.Unlock()
		<-replied
		sendExit(ch, cmd.ProcessState)
		ch.Close()
	}()
	return pgid, nil
}

func sendExit(ch ssh.Channel, st *os.ProcessState) {
	if st == nil {
		return
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := "KILL"
		for n, sig := range signals {
			if sig == ws.Signal() {
				name = n
			}
		}
		ch.SendRequest("exit-signal", false, ssh.Marshal(struct {
			Signal     string
			CoreDumped bool
			Error      string
			Lang       string
		}{name, false, ws.Signal().String(), ""}))
		return
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(st.ExitCode()))
	ch.SendRequest("exit-status", false, b[:])
}

func (s *Server) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for pgid := range s.procs {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// dropWriter sends a command's stdout and closes the TCP connection after DropAfterStdout bytes.
type dropWriter struct {
	w  io.Writer
	s  *Server
	c  *faultConn
	mu sync.Mutex
	n  int
}

func (d *dropWriter) Write(p []byte) (int, error) {
	limit := d.s.options().DropAfterStdout
	d.mu.Lock()
	defer d.mu.Unlock()
	if limit <= 0 {
		return d.w.Write(p)
	}
	if rest := limit - d.n; len(p) >= rest {
		n, _ := d.w.Write(p[:max(rest, 0)])
		d.n += n
		d.s.logf("dropping the connection after %d bytes of stdout", d.n)
		d.c.Close()
		return n, io.ErrClosedPipe
	}
	n, err := d.w.Write(p)
	d.n += n
	return n, err
}
