package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostTransport runs commands on the host with HOME set to a temp dir: a board whose behaviour tests can bend.
type hostTransport struct {
	home     string
	path     string            // PATH for commands; empty: the test's own
	afterPut func(path string) // called after each successful Put, e.g. to corrupt the copy
	putErr   error             // returned by Put instead of writing
	puts     int
	runs     []string
}

var _ Transport = (*hostTransport)(nil)

func (h *hostTransport) Run(ctx context.Context, cmd Command) error {
	h.runs = append(h.runs, strings.Join(cmd.Args, " "))
	prog := cmd.Args[0]
	if h.path != "" && !strings.Contains(prog, "/") {
		// The board's PATH decides, as a remote shell's would.
		if p := filepath.Join(h.path, prog); fileExists(p) {
			prog = p
		}
	}
	c := exec.CommandContext(ctx, prog, cmd.Args[1:]...)
	// as the transports stop a command: SIGTERM first (a shell session's EXIT trap then removes its directory)
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	c.WaitDelay = 2 * time.Second
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	c.Env = append(os.Environ(), "HOME="+h.home)
	if h.path != "" {
		c.Env = append(c.Env, "PATH="+h.path)
	}
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.ExitCode()}
	}
	return err
}

func (h *hostTransport) Put(ctx context.Context, path string, r io.Reader, size int64, perm fs.FileMode) error {
	h.puts++
	if h.putErr != nil {
		return h.putErr
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if int64(len(b)) != size {
		return fmt.Errorf("put %s: read %d bytes, want %d", path, len(b), size)
	}
	if err := os.WriteFile(path, b, perm); err != nil {
		return err
	}
	if h.afterPut != nil {
		h.afterPut(path)
	}
	return nil
}

func (h *hostTransport) Close() error { return nil }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// cannedTransport answers every command with the same output.
type cannedTransport struct {
	stdout string
	err    error
}

func (c *cannedTransport) Run(ctx context.Context, cmd Command) error {
	io.WriteString(cmd.Stdout, c.stdout)
	return c.err
}

func (c *cannedTransport) Put(context.Context, string, io.Reader, int64, fs.FileMode) error {
	return errors.New("cannedTransport: no Put")
}

func (c *cannedTransport) Close() error { return nil }

// fakeAgent writes an executable that answers `sha256 FILE` like the real agent, so deploys can be verified on a
// board without sha256sum.
func fakeAgent(t *testing.T) (path string, size int64) {
	t.Helper()
	sum, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Skip("sha256sum not on PATH")
	}
	script := "#!/bin/sh\n# fleet test agent\n[ \"$1\" = sha256 ] && exec " + sum + " \"$2\"\nexit 2\n" + strings.Repeat("#", 4000) + "\n"
	path = filepath.Join(t.TempDir(), "fleet-agent")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, int64(len(script))
}

// flipByte corrupts a file in place without changing its size.
func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-2] ^= 0x01 // in the trailing comment: the script still runs
	if err := os.WriteFile(path, b, 0o700); err != nil {
		t.Fatal(err)
	}
}

// noSHA256Path returns a PATH with the few tools the deploy scripts use, and no sha256sum.
func noSHA256Path(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"mkdir", "chmod", "wc", "cat"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not on PATH", tool)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDeploy(t *testing.T) {
	for _, withSum := range []bool{true, false} {
		name := "sha256sum"
		if !withSum {
			name = "agent-sha256"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			agentPath, size := fakeAgent(t)
			board := &hostTransport{home: t.TempDir()}
			if !withSum {
				board.path = noSHA256Path(t)
			}
			var log bytes.Buffer
			opts := DeployOptions{Board: "am64x", Logf: func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }}

			first, err := Deploy(ctx, board, agentPath, opts)
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := fileSHA256(agentPath)
			if got, wantPath := first.RemotePath, filepath.Join(board.home, ".cache/fleet/agent-"+want[:12]); got != wantPath {
				t.Errorf("RemotePath = %q, want %q", got, wantPath)
			}
			if first.Pushed != size || first.Skipped() || first.SHA256 != want {
				t.Errorf("first deploy = %+v, want %d bytes pushed, sha256 %s", first, size, want)
			}
			if fi, err := os.Stat(filepath.Dir(first.RemotePath)); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("agent dir mode = %v (%v), want 0700", fi.Mode().Perm(), err)
			}
			if got, _, _ := fileSHA256(first.RemotePath); got != want {
				t.Errorf("remote copy sha256 = %s, want %s", got, want)
			}

			second, err := Deploy(ctx, board, agentPath, opts)
			if err != nil {
				t.Fatal(err)
			}
			if second.Pushed != 0 || !second.Skipped() {
				t.Errorf("second deploy = %+v, want 0 bytes pushed, skipped", second)
			}
			if !strings.Contains(log.String(), "agent already on am64x (sha256 "+want[:12]+"), pushed 0 bytes") {
				t.Errorf("log does not say the second deploy pushed nothing:\n%s", log.String())
			}
			if board.puts != 1 {
				t.Errorf("Put called %d times over two deploys, want 1", board.puts)
			}

			// A corrupt copy of the right size, then a truncated one: each is replaced.
			for _, corrupt := range []func(){
				func() { flipByte(t, first.RemotePath) },
				func() { os.Truncate(first.RemotePath, 100) },
			} {
				corrupt()
				again, err := Deploy(ctx, board, agentPath, opts)
				if err != nil {
					t.Fatal(err)
				}
				if again.Pushed != size || again.Skipped() {
					t.Errorf("deploy over a corrupt copy = %+v, want %d bytes pushed", again, size)
				}
				if got, _, _ := fileSHA256(first.RemotePath); got != want {
					t.Errorf("after re-push remote sha256 = %s, want %s", got, want)
				}
			}
		})
	}
}

// TestDeployBusybox deploys to a board whose every tool, the shell included, is busybox.
func TestDeployBusybox(t *testing.T) {
	bb, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("busybox not installed (apt-get install busybox)")
	}
	dir := t.TempDir()
	for _, applet := range []string{"sh", "mkdir", "chmod", "wc", "cat", "sha256sum", "df", "mv", "rm", "uname", "stat"} {
		if err := os.Symlink(bb, filepath.Join(dir, applet)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	agentPath, size := fakeAgent(t)
	board := &hostTransport{home: t.TempDir(), path: dir}
	if arch, err := DetectArch(ctx, board); err != nil {
		t.Errorf("DetectArch with busybox: %v", err)
	} else if _, err := TargetForArch(arch); err != nil {
		t.Errorf("DetectArch with busybox = %q: %v", arch, err)
	}
	first, err := Deploy(ctx, board, agentPath, DeployOptions{Board: "am18x"})
	if err != nil || first.Pushed != size {
		t.Fatalf("first deploy with busybox = %+v, %v; want %d bytes pushed", first, err, size)
	}
	if second, err := Deploy(ctx, board, agentPath, DeployOptions{Board: "am18x"}); err != nil || !second.Skipped() {
		t.Errorf("second deploy with busybox = %+v, %v; want skipped", second, err)
	}
	flipByte(t, first.RemotePath)
	if third, err := Deploy(ctx, board, agentPath, DeployOptions{Board: "am18x"}); err != nil || third.Pushed != size {
		t.Errorf("deploy over a corrupt copy with busybox = %+v, %v; want %d bytes pushed", third, err, size)
	}
	if free, ok := freeKiB(ctx, board, board.home); !ok || free <= 0 {
		t.Errorf("busybox df: free = %d, ok = %v", free, ok)
	}
	for _, r := range board.runs {
		if strings.HasPrefix(r, "sh -c chmod 700") {
			t.Errorf("fell back to the agent's own sha256 although busybox has sha256sum: %s", r)
		}
	}
}

func TestDeployCorruptedInTransit(t *testing.T) {
	ctx := context.Background()
	agentPath, size := fakeAgent(t)
	want, _, _ := fileSHA256(agentPath)

	// Corrupted once: the second push verifies.
	board := &hostTransport{home: t.TempDir()}
	board.afterPut = func(path string) {
		if board.puts == 1 {
			flipByte(t, path)
		}
	}
	res, err := Deploy(ctx, board, agentPath, DeployOptions{Board: "am335x"})
	if err != nil {
		t.Fatalf("deploy with one corrupt transfer: %v", err)
	}
	if res.Pushed != 2*size || board.puts != 2 {
		t.Errorf("deploy = %+v after %d puts, want %d bytes in 2 puts", res, board.puts, 2*size)
	}

	// Corrupted every time: a checksum error naming the board, after exactly two pushes.
	for _, withSum := range []bool{true, false} {
		board = &hostTransport{home: t.TempDir(), afterPut: func(path string) { flipByte(t, path) }}
		if !withSum {
			board.path = noSHA256Path(t)
		}
		_, err = Deploy(ctx, board, agentPath, DeployOptions{Board: "am335x"})
		if !errors.Is(err, ErrChecksum) {
			t.Fatalf("deploy with corrupting board (sha256sum %v) = %v, want ErrChecksum", withSum, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "unexpected checksum on am335x: got ") || !strings.Contains(msg, "want "+want) {
			t.Errorf("error %q does not name the board and both checksums", msg)
		}
		if board.puts != 2 {
			t.Errorf("Put called %d times, want 2 (one re-push)", board.puts)
		}
	}
}

func TestDeployErrors(t *testing.T) {
	ctx := context.Background()
	agentPath, _ := fakeAgent(t)

	full := &hostTransport{home: t.TempDir(), putErr: &fs.PathError{Op: "write", Path: "agent", Err: syscall.ENOSPC}}
	_, err := Deploy(ctx, full, agentPath, DeployOptions{Board: "imx6q"})
	if !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(err.Error(), "push agent to imx6q: ") {
		t.Errorf("deploy to a full disk = %v, want \"push agent to imx6q: …\" wrapping ENOSPC", err)
	}

	_, err = Deploy(ctx, &cannedTransport{stdout: "arch x86_64\nhome relative/home\n"}, agentPath, DeployOptions{Board: "am18x"})
	if err == nil || !strings.Contains(err.Error(), "am18x") || !strings.Contains(err.Error(), "$HOME") {
		t.Errorf("deploy with a relative $HOME = %v, want an error naming the board and $HOME", err)
	}

	_, err = Deploy(ctx, &cannedTransport{err: &ExitError{Code: 127}}, agentPath, DeployOptions{Board: "am37x"})
	var ee *ExitError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "am37x") {
		t.Errorf("deploy where sh fails = %v, want an ExitError naming am37x", err)
	}

	if _, err := Deploy(ctx, full, filepath.Join(t.TempDir(), "missing"), DeployOptions{Board: "am64x"}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("deploy of a missing local agent = %v, want ErrNotExist", err)
	}
}
