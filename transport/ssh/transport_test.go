package ssh

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshtest"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/transport"
)

// testSSHOptions are quick and hermetic: a private home, no agent, no retries unless a test asks.
func testSSHOptions(t *testing.T) Options {
	return Options{
		Home:           t.TempDir(),
		AgentSocket:    "none",
		ConnectTimeout: 3 * time.Second,
		Retries:        -1,
		RetryBackoff:   10 * time.Millisecond,
		Logf:           t.Logf,
	}
}

// testBoard is srv as a board, its host keys pinned in a fresh known_hosts.
func testBoard(t *testing.T, srv *sshtest.Server) inventory.Board {
	return inventory.Board{
		Name:         "testboard",
		Host:         srv.Host(),
		Port:         srv.Port(),
		User:         "tester",
		IdentityFile: srv.IdentityFile(),
		KnownHosts:   srv.KnownHosts(t),
	}
}

func dialTest(t *testing.T, b inventory.Board, opts Options) *Transport {
	t.Helper()
	tr, err := Dial(context.Background(), b, opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestSSHRun(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
	tests := []struct {
		name       string
		cmd        transport.Command
		wantOut    string
		wantErr    string
		wantCode   int
		wantStderr string
	}{
		{name: "stdin to stdout", cmd: transport.Command{Args: []string{"cat"}, Stdin: strings.NewReader("hello\nboard\n")},
			wantOut: "hello\nboard\n"},
		{name: "separate stderr", cmd: transport.Command{Args: []string{"sh", "-c", "echo out; echo err >&2"}},
			wantOut: "out\n", wantErr: "err\n"},
		{name: "exit code", cmd: transport.Command{Args: []string{"sh", "-c", "echo oops >&2; exit 3"}},
			wantCode: 3, wantErr: "oops\n"},
		{name: "env", cmd: transport.Command{Args: []string{"sh", "-c", `printf '%s|%s' "$A" "$B_2"`},
			Env: map[string]string{"A": "it's $(rm -rf /) `x`", "B_2": "two\nlines"}},
			wantOut: "it's $(rm -rf /) `x`|two\nlines"},
		{name: "no stdin is EOF", cmd: transport.Command{Args: []string{"wc", "-c"}}, wantOut: "0\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			tc.cmd.Stdout, tc.cmd.Stderr = &stdout, &stderr
			err := tr.Run(context.Background(), tc.cmd)
			var exit *transport.ExitError
			switch {
			case tc.wantCode == 0 && err != nil:
				t.Fatalf("Run: %v", err)
			case tc.wantCode != 0 && !errors.As(err, &exit):
				t.Fatalf("Run = %v, want *transport.ExitError", err)
			case tc.wantCode != 0 && exit.Code != tc.wantCode:
				t.Errorf("exit code = %d, want %d", exit.Code, tc.wantCode)
			}
			if got := strings.TrimLeft(stdout.String(), " "); got != tc.wantOut {
				t.Errorf("stdout = %q, want %q", got, tc.wantOut)
			}
			if got := stderr.String(); got != tc.wantErr {
				t.Errorf("stderr = %q, want %q", got, tc.wantErr)
			}
		})
	}
	t.Run("stderr tail in transport.ExitError", func(t *testing.T) {
		err := tr.Run(context.Background(), transport.Command{Args: []string{"sh", "-c", "echo no such algorithm >&2; exit 1"}})
		var exit *transport.ExitError
		if !errors.As(err, &exit) || exit.Stderr != "no such algorithm" {
			t.Errorf("Run = %#v, want transport.ExitError with the stderr tail", err)
		}
	})
	t.Run("same writer for stdout and stderr", func(t *testing.T) {
		var both bytes.Buffer
		script := "i=0; while [ $i -lt 200 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done"
		if err := tr.Run(context.Background(), transport.Command{Args: []string{"sh", "-c", script}, Stdout: &both, Stderr: &both}); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Count(both.String(), "\n"), 400; got != want {
			t.Errorf("lines = %d, want %d", got, want)
		}
	})
}

func TestSSHRunConcurrent(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
	errc := make(chan error, 4)
	for i := range 4 {
		go func() {
			var out bytes.Buffer
			err := tr.Run(context.Background(), transport.Command{Args: []string{"echo", strconv.Itoa(i)}, Stdout: &out})
			if err == nil && out.String() != strconv.Itoa(i)+"\n" {
				err = errors.New("wrong output " + out.String())
			}
			errc <- err
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

func TestSSHCancel(t *testing.T) {
	tests := []struct {
		name          string
		ignoreSignals bool
		script        string
	}{
		// SIGTERM stops it.
		{name: "signal", script: "echo $$; exec sleep 100"},
		// A server that refuses signals (OpenSSH for some logins): the end of stdin stops a reader, like the agent.
		{name: "stdin closed", ignoreSignals: true, script: "echo $$; exec cat >/dev/null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := sshtest.Start(t, sshtest.Options{IgnoreSignals: tc.ignoreSignals})
			tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pr, pw := io.Pipe()
			stdinR, stdinW := io.Pipe()
			defer stdinW.Close()
			errc := make(chan error, 1)
			go func() {
				errc <- tr.Run(ctx, transport.Command{Args: []string{"sh", "-c", tc.script}, Stdin: stdinR, Stdout: pw})
				pw.Close()
			}()
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil {
				t.Fatalf("read pid: %v (%v)", err, <-errc)
			}
			go io.Copy(io.Discard, pr)
			pid := strings.TrimSpace(line)
			if processGone(pid) {
				t.Fatalf("remote process %s not running", pid)
			}
			start := time.Now()
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run = %v, want context.Canceled", err)
				}
				if d := time.Since(start); d > 2*time.Second {
					t.Errorf("Run returned %v after cancel, want about a second at most", d)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return after cancel")
			}
			waitGone(t, pid)
		})
	}
}

// TestSSHRunReaderGone: a command flooding its stdout, whose reader gives up, is stopped, even when it ignores
// its stdin and the server refuses signals: Run returns instead of waiting forever on a full channel window.
func TestSSHRunReaderGone(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{IgnoreSignals: true})
	tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
	pr, pw := io.Pipe()
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	errc := make(chan error, 1)
	go func() {
		errc <- tr.Run(context.Background(), transport.Command{Args: []string{"sh", "-c", "echo $$; exec yes flood"}, Stdin: stdinR, Stdout: pw})
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read pid: %v (%v)", err, <-errc)
	}
	gone := errors.New("reader gone")
	pr.CloseWithError(gone)
	select {
	case err := <-errc:
		if !errors.Is(err, gone) {
			t.Errorf("Run = %v, want the failed write's error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its stdout reader went away")
	}
	waitGone(t, strings.TrimSpace(line))
}

// waitGone fails unless process pid is gone within two seconds. A zombie counts as gone: an orphan is reaped by
// PID 1, which in some containers does so only now and then.
func waitGone(t *testing.T, pid string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if processGone(pid) {
			return
		}
	}
	st, _ := os.ReadFile("/proc/" + pid + "/stat")
	t.Errorf("remote process %s still running: %s", pid, st)
}

func processGone(pid string) bool {
	st, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces, the state follows the last ')'.
	s := string(st)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func TestSSHCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		srv := sshtest.Start(t, sshtest.Options{})
		opts := testSSHOptions(t)
		opts.KeepaliveInterval = 50 * time.Millisecond
		tr, err := Dial(context.Background(), testBoard(t, srv), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Run(context.Background(), transport.Command{Args: []string{"true"}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond) // a few keepalives
		tr.Close()
		srv.Close()
	}()
	var n int
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if n = runtime.NumGoroutine(); n <= before {
			return
		}
	}
	buf := make([]byte, 1<<16)
	t.Errorf("goroutines: %d before, %d after Close\n%s", before, n, buf[:runtime.Stack(buf, true)])
}
