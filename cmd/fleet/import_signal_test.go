package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigCapture writes a capture of at least size bytes: copies of a real one, as a log of many nights would be.
func bigCapture(t *testing.T, size int) string {
	t.Helper()
	one, err := os.ReadFile(capturePath(t, "L01"))
	if err != nil {
		t.Fatal(err)
	}
	text := bytes.Repeat(append(one, '\n'), size/len(one)+1)
	return writeCapture(t, t.TempDir(), "big.txt", string(text))
}

// waitWriting waits until the import writes into the database at path (its WAL file grows past 1 MiB).
func waitWriting(t *testing.T, path string, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 1<<20 {
			return
		}
		select {
		case <-done:
			t.Fatal("the import ended before it could be interrupted: make the capture larger")
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the import did not start writing within 60 s")
}

// TestImportInterruptedStoresNothing: Ctrl-C (the command's context cancelled) while an import is storing
// stops it within a second, exits 130 and stores nothing of it: no run, not even an incomplete one.
func TestImportInterruptedStoresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 16 MB capture")
	}
	capture := bigCapture(t, 16<<20)
	db := filepath.Join(t.TempDir(), "fleet.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = run(ctx, strings.NewReader(""), new(bytes.Buffer), &stderr, []string{"fleet", "--db", db, "import", "--board", "b", capture})
	}()
	waitWriting(t, db, done)
	cancel()
	start := time.Now()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("import still running 5 s after Ctrl-C")
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("import stopped %v after Ctrl-C, want within a second", took)
	}
	if code := exitCode(ctx, err, &stderr); code != exitInterrupted || !errors.Is(err, context.Canceled) {
		t.Errorf("exit %d (%v), want 130", code, err)
	}
	if !strings.Contains(stderr.String(), "nothing stored") {
		t.Errorf("stderr %q does not say that nothing was stored", stderr.String())
	}
	if runs := storedRuns(t, db); len(runs) != 0 {
		t.Errorf("stored %d runs after Ctrl-C, want none: %+v", len(runs), runs)
	}
}

// importChildEnv makes the test binary run fleet's main with the arguments after "--".
const importChildEnv = "FLEET_IMPORT_SIGNAL_CHILD"

// TestImportSignal sends real signals to a fleet process importing a large capture: SIGINT and SIGTERM stop it
// within a second with exit 130; SIGKILL (what a second Ctrl-C amounts to) leaves nothing behind either.
func TestImportSignal(t *testing.T) {
	if os.Getenv(importChildEnv) != "" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"fleet"}, os.Args[i+1:]...)
				break
			}
		}
		main()
		return
	}
	if testing.Short() {
		t.Skip("starts fleet processes importing a 16 MB capture")
	}
	capture := bigCapture(t, 16<<20)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "fleet.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestImportSignal$", "--", "--db", db, "import", "--board", "b", capture)
			cmd.Env = append(os.Environ(), importChildEnv+"=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var werr error
			go func() { werr = cmd.Wait(); close(done) }()
			t.Cleanup(func() { cmd.Process.Kill(); <-done })
			waitWriting(t, db, done)
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("fleet still running 5 s after %v", sig)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("fleet stopped %v after %v, want within a second", took, sig)
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) {
				t.Fatalf("fleet after %v: %v", sig, werr)
			}
			if sig != syscall.SIGKILL && ee.ExitCode() != exitInterrupted {
				t.Errorf("exit %d after %v, want 130; stderr %s", ee.ExitCode(), sig, stderr.String())
			}
			if runs := storedRuns(t, db); len(runs) != 0 {
				t.Errorf("stored %d runs after %v, want none: %+v", len(runs), sig, runs)
			}
		})
	}
}
