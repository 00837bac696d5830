package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/fleetlab/fleet/transport"
)

// cancelGrace is how long a cancelled command has, after SIGTERM and the end of its stdin, before its session is
// closed.
const cancelGrace = time.Second

// Run runs cmd on the board in a session of its own. The command line is cmd.Args, each quoted for a POSIX shell,
// behind "env NAME='value'" for cmd.Env (sshd usually refuses the SSH "env" request). A non-zero exit is an
// *transport.ExitError; a connection that dies matches transport.ErrConnectionLost. Cancelling ctx sends SIGTERM,
// closes stdin and closes the session within cancelGrace, and returns ctx.Err() wrapped. A write to cmd.Stdout or cmd.Stderr that
// fails (the caller stopped reading) stops the command the same way and returns that write's error wrapped.
func (t *Transport) Run(ctx context.Context, cmd transport.Command) error {
	line, err := commandLine(cmd.Args, cmd.Env)
	if err != nil {
		return fmt.Errorf("run on %s: %w", t.board, err)
	}
	return t.run(ctx, "run "+cmd.Args[0], line, cmd.Stdin, cmd.Stdout, cmd.Stderr)
}

// commandLine quotes args and env for a POSIX shell (busybox ash, dash, bash).
func commandLine(args []string, env map[string]string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("empty command")
	}
	var b strings.Builder
	if len(env) > 0 {
		names := make([]string, 0, len(env))
		for n := range env {
			if !validEnvName(n) {
				return "", fmt.Errorf("bad environment variable name %q", n)
			}
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString("env")
		for _, n := range names {
			if strings.ContainsRune(env[n], 0) {
				return "", fmt.Errorf("environment variable %s contains a NUL byte", n)
			}
			b.WriteString(" " + n + "=" + transport.Quote(env[n]))
		}
		b.WriteString(" ")
	}
	for i, a := range args {
		if strings.ContainsRune(a, 0) {
			return "", fmt.Errorf("argument %d contains a NUL byte", i)
		}
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(transport.Quote(a))
	}
	return b.String(), nil
}

func validEnvName(n string) bool {
	if n == "" {
		return false
	}
	for i, c := range n {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// run runs a shell line in a new session and waits for it; what names the operation in errors.
func (t *Transport) run(ctx context.Context, what, line string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s on %s: %w", what, t.board, err)
	}
	if !t.alive() {
		return fmt.Errorf("%s on %s: %w", what, t.board, t.lostErr())
	}
	s, err := t.clients[len(t.clients)-1].NewSession()
	if err != nil {
		if t.waitLost() {
			return fmt.Errorf("%s on %s: %w", what, t.board, t.lostErr())
		}
		return fmt.Errorf("%s on %s: open session: %w", what, t.board, err)
	}
	defer s.Close()
	var tail *transport.TailWriter
	if stderr == nil {
		tail = &transport.TailWriter{Max: 4096}
		stderr = tail
	}
	outFailed := newWriteFailure()
	stdout, stderr = separate(stdout, stderr)
	s.Stdout, s.Stderr = smallCopies{outFailed.watch(stdout)}, smallCopies{outFailed.watch(stderr)}
	var in io.WriteCloser
	if stdin != nil {
		// Our own copy, not Session.Stdin: Wait would wait for a Stdin reader that never ends.
		pipe, err := s.StdinPipe()
		if err != nil {
			return fmt.Errorf("%s on %s: %w", what, t.board, err)
		}
		in = &serialStdin{wc: pipe}
	}
	if err := s.Start(line); err != nil {
		if t.waitLost() {
			return fmt.Errorf("%s on %s: %w", what, t.board, t.lostErr())
		}
		return fmt.Errorf("%s on %s: start: %w", what, t.board, err)
	}
	if in != nil {
		go func() {
			io.CopyBuffer(in, readerOnly{stdin}, make([]byte, 8<<10))
			in.Close()
		}()
	}
	waitc := make(chan error, 1)
	go func() { waitc <- s.Wait() }()
	select {
	case err = <-waitc:
	case <-ctx.Done():
		t.stop(s, in, waitc)
		return fmt.Errorf("%s on %s: %w", what, t.board, ctx.Err())
	case <-outFailed.failed:
		// Nobody reads the output any more (the caller gave up on a flood of it): x/crypto stops copying, the
		// channel's window fills, the command blocks on its next write and Wait would never return.
		t.stop(s, in, waitc)
		return fmt.Errorf("%s on %s: stopped: its output could not be written: %w", what, t.board, outFailed.err)
	}
	var exit *ssh.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit):
		e := &transport.ExitError{Code: exit.ExitStatus()}
		if tail != nil {
			e.Stderr = tail.String()
		}
		return e
	case t.waitLost():
		return fmt.Errorf("%s on %s: %w", what, t.board, t.lostErr())
	default:
		return fmt.Errorf("%s on %s: %w", what, t.board, err)
	}
}

// stop ends a cancelled command: SIGTERM (OpenSSH refuses it for some logins), end of stdin (the agent exits
// when its stdin closes), then the session is closed if the command has not exited within cancelGrace.
func (t *Transport) stop(s *ssh.Session, in io.WriteCloser, waitc <-chan error) {
	s.Signal(ssh.SIGTERM)
	if in != nil {
		// A write blocked on a full channel window holds serialStdin's lock until the session closes below.
		go in.Close()
	}
	grace := time.NewTimer(cancelGrace)
	defer grace.Stop()
	select {
	case <-waitc:
		return
	case <-grace.C:
	}
	s.Close()
	select {
	case <-waitc:
	case <-time.After(cancelGrace): // a dead link: Wait ends when the connection is closed
	}
}

// waitLost reports whether the connection is gone, giving its watcher a moment to notice: a session that ended
// because the TCP connection dropped can return before the client has registered the drop.
func (t *Transport) waitLost() bool {
	select {
	case <-t.done:
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

// separate returns the writers for a session's stdout and stderr. x/crypto copies the two streams in two
// goroutines, so one writer given for both would be written concurrently (seen: lost output): the writes are
// serialised through one lock instead.
func separate(stdout, stderr io.Writer) (io.Writer, io.Writer) {
	if !sameWriter(stdout, stderr) {
		return stdout, stderr
	}
	mu := new(sync.Mutex)
	return &lockedWriter{mu: mu, w: stdout}, &lockedWriter{mu: mu, w: stderr}
}

func sameWriter(a, b io.Writer) bool {
	if a == nil || b == nil {
		return false
	}
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) || !ta.Comparable() {
		return false
	}
	return a == b
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// writeFailure records the first failed write to a session's stdout or stderr.
type writeFailure struct {
	once   sync.Once
	failed chan struct{} // closed on the first failed write
	err    error         // that write's error, set before failed is closed
}

func newWriteFailure() *writeFailure { return &writeFailure{failed: make(chan struct{})} }

// watch returns w, reporting its first failed write to f; nil stays nil (x/crypto discards that stream).
func (f *writeFailure) watch(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &watchedWriter{w: w, f: f}
}

type watchedWriter struct {
	w io.Writer
	f *writeFailure
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.f.once.Do(func() {
			w.f.err = err
			close(w.f.failed)
		})
	}
	return n, err
}

// serialStdin keeps Write and Close of a session's stdin apart: x/crypto's channel reads its EOF flag in Write
// without a lock while CloseWrite sets it (seen: a data race when a cancel closed stdin during a copy).
type serialStdin struct {
	mu     sync.Mutex
	wc     io.WriteCloser
	closed bool
}

func (s *serialStdin) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, io.ErrClosedPipe
	}
	return s.wc.Write(p)
}

func (s *serialStdin) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.wc.Close()
}

// smallCopies makes x/crypto's io.Copy of a session's output use a 4 KiB buffer instead of 32 KiB: a sweep
// holds its sessions open for minutes, one per board (seen: 20 MB of copy buffers with 500 boards).
type smallCopies struct{ w io.Writer }

func (s smallCopies) Write(p []byte) (int, error) { return s.w.Write(p) }

func (s smallCopies) ReadFrom(r io.Reader) (int64, error) {
	return io.CopyBuffer(writerOnly{s.w}, r, make([]byte, 4<<10))
}

// writerOnly and readerOnly hide ReadFrom and WriteTo, so io.CopyBuffer uses the buffer it is given.
type writerOnly struct{ io.Writer }

type readerOnly struct{ io.Reader }
