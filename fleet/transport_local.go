package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// LocalTransport runs commands on the host itself: the built-in board "local".
type LocalTransport struct {
	// Home replaces $HOME for path expansion on "the board" (tests); empty means the real one.
	Home string
}

var _ Transport = (*LocalTransport)(nil)

// NewLocal returns the transport of the built-in local board.
func NewLocal() *LocalTransport { return &LocalTransport{} }

// Run starts cmd.Args[0] directly (no shell) in its own process group. Cancelling ctx sends SIGTERM to the group,
// then SIGKILL after a second.
func (l *LocalTransport) Run(ctx context.Context, cmd Command) error {
	if len(cmd.Args) == 0 {
		return errors.New("run: empty command")
	}
	c := exec.Command(cmd.Args[0], cmd.Args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	var tail *tailWriter
	if c.Stderr == nil {
		tail = &tailWriter{Max: 4096}
		c.Stderr = tail
	}
	c.Env = os.Environ()
	if l.Home != "" {
		c.Env = append(c.Env, "HOME="+l.Home)
	}
	for k, v := range cmd.Env {
		c.Env = append(c.Env, k+"="+v)
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		return fmt.Errorf("run %s: %w", cmd.Args[0], err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(time.Second):
				_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			}
		case <-done:
		}
	}()
	err := c.Wait()
	close(done)
	if ctx.Err() != nil {
		return fmt.Errorf("run %s: %w", cmd.Args[0], ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		e := &ExitError{Code: ee.ExitCode()}
		if tail != nil {
			e.Stderr = tail.String()
		}
		return e
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", cmd.Args[0], err)
	}
	return nil
}

// Put writes r to path atomically (temporary file, then rename), creating parent directories with mode 0700.
// A leading "~/" or "$HOME/" is the user's home directory.
func (l *LocalTransport) Put(ctx context.Context, path string, r io.Reader, size int64, perm fs.FileMode) error {
	path = l.expand(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("put %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".put-*")
	if err != nil {
		return fmt.Errorf("put %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	n, err := io.Copy(f, &ctxReader{ctx: ctx, r: r})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", path, err)
	}
	if size >= 0 && n != size {
		return fmt.Errorf("put %s: wrote %d bytes, want %d", path, n, size)
	}
	if err := os.Chmod(f.Name(), perm); err != nil {
		return fmt.Errorf("put %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("put %s: %w", path, err)
	}
	return nil
}

// Close does nothing: there is no connection.
func (l *LocalTransport) Close() error { return nil }

func (l *LocalTransport) expand(p string) string {
	home := l.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	for _, pre := range []string{"~/", "$HOME/"} {
		if len(p) > len(pre) && p[:len(pre)] == pre {
			return filepath.Join(home, p[len(pre):])
		}
	}
	return p
}

// ctxReader stops a copy when the context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
