package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// closedPipeChildEnv makes the test binary run fleet's main with the arguments after "--".
const closedPipeChildEnv = "FLEET_CLOSED_PIPE_CHILD"

// checkInterruptedNoLease fails unless db holds one run, interrupted, and no lease.
func checkInterruptedNoLease(t *testing.T, path string) {
	t.Helper()
	runs := storedRuns(t, path)
	if len(runs) != 1 || runs[0].Status != protocol.StatusInterrupted {
		t.Errorf("runs after the output closed: %+v, want one, interrupted", runs)
	}
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if leases, err := db.Leases(context.Background()); err != nil || len(leases) != 0 {
		t.Errorf("leases after the output closed: %+v, %v; want none", leases, err)
	}
}

// TestClosedOutputInterruptsRun is `fleet run --boards local … 2>&1 | head -1` for real: once the reader of
// fleet's output is gone, fleet stops within seconds (not killed by SIGPIPE mid-run), marks the run
// interrupted and leaves no lease on the board.
func TestClosedOutputInterruptsRun(t *testing.T) {
	if os.Getenv(closedPipeChildEnv) != "" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"fleet"}, os.Args[i+1:]...)
				break
			}
		}
		main()
		return
	}
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent and starts a fleet run on this machine")
	}
	db := filepath.Join(t.TempDir(), "fleet.db")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClosedOutputInterruptsRun$", "--", "run", "--db", db,
		"--boards", "local", "--algorithms", "sha256,sha512,aes-128-cbc", "--seconds", "1")
	cmd.Env = append(os.Environ(), closedPipeChildEnv+"=1")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	out := bufio.NewReader(r)
	line, err := out.ReadString('\n') // head -1
	if err != nil {
		t.Fatalf("first line: %q, %v", line, err)
	}
	// wait until the run is measuring, as a reader that saw the first points would
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(line, "1/") && time.Now().Before(deadline) {
		if line, err = out.ReadString('\n'); err != nil {
			t.Fatalf("fleet ended before measuring: %v", err)
		}
	}
	r.Close()
	closed := time.Now()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("fleet still running 20 s after its output closed")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("fleet after its output closed: %v, want exit 130", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("fleet was killed by %v, want it to stop by itself", ws.Signal())
	}
	if ee.ExitCode() != exitInterrupted {
		t.Errorf("exit %d, want 130", ee.ExitCode())
	}
	t.Logf("stopped %v after the output closed", time.Since(closed).Round(time.Millisecond))
	checkInterruptedNoLease(t, db)
}

// epipeWriter fails every write after the first n bytes as a pipe without a reader does.
type epipeWriter struct {
	buf bytes.Buffer
	n   int
}

func (e *epipeWriter) Write(b []byte) (int, error) {
	if e.buf.Len()+len(b) > e.n {
		return 0, syscall.EPIPE
	}
	return e.buf.Write(b)
}

// TestClosedStderrCancelsRunInProcess: the same in-process: stderr failing with EPIPE cancels the run, which
// ends interrupted and holding no lease.
func TestClosedStderrCancelsRunInProcess(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent and starts a fleet run on this machine")
	}
	db := filepath.Join(t.TempDir(), "fleet.db")
	var stdout bytes.Buffer
	stderr := &epipeWriter{n: 700} // the progress lines up to the first points
	ctx := context.Background()
	start := time.Now()
	err := run(ctx, strings.NewReader(""), &stdout, stderr, []string{"fleet", "run", "--db", db, "--boards", "local",
		"--algorithms", "sha256,sha512,aes-128-cbc", "--seconds", "1"})
	if code := exitCode(ctx, err, io.Discard); code != exitInterrupted {
		t.Fatalf("run = %v: exit %d, want 130 (stderr %s)", err, code, stderr.buf.String())
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("run took %v, want it stopped soon after stderr closed", d)
	}
	t.Logf("run = %v after %v; stderr before it closed:\n%s", err, time.Since(start), stderr.buf.String())
	checkInterruptedNoLease(t, db)
}
