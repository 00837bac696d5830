package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// runFleet runs the CLI in-process, as main does, and returns stdout, stderr and the exit code.
func runFleet(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx := context.Background()
	err := run(ctx, strings.NewReader(""), &stdout, &stderr, append([]string{"fleet"}, args...))
	code := exitCode(ctx, err, &stderr)
	return stdout.String(), stderr.String(), code
}

func needOpenSSL(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed (apt-get install openssl)")
	}
}

// TestRunLocalEndToEnd is the README's first command in small: the local board, both default modes, every
// default block size, stored in a real SQLite file.
func TestRunLocalEndToEnd(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent and runs openssl for a few seconds")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	stdout, stderr, code := runFleet(t, "run", "--boards", "local", "--db", db,
		"--seconds", "1", "--algorithms", "aes-128-cbc,sha256")
	if code != 0 {
		t.Fatalf("fleet run exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"aes-128-cbc", "sha256", "soft", "cpu", "16384", "CPU"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// progress and the run's summary are for the terminal: stdout, redirected, has the tables alone
	for _, progress := range []string{"points planned", "verifying", "measuring", " left", "run 1:", "to do:"} {
		if strings.Contains(stdout, progress) {
			t.Errorf("stdout has the progress or summary text %q:\n%s", progress, stdout)
		}
	}
	for _, want := range []string{"points planned, about", "verifying soft aes-128-cbc: ok", "measuring: 24 points"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks the progress %q:\n%s", want, stderr)
		}
	}
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(runs), 1; got != want {
		t.Fatalf("runs = %d, want %d", got, want)
	}
	if got, want := runs[0].Status, protocol.StatusOK; got != want {
		t.Errorf("run status = %q, want %q", got, want)
	}
	ms, err := s.Measurements(context.Background(), store.Filter{RunID: runs[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		mode, alg string
		size      int
	}
	got := map[key]bool{}
	for _, m := range ms {
		if m.Failed {
			t.Errorf("failed point %s %s %d: %s", m.Mode, m.Algorithm, m.BlockSize, m.Error)
		}
		if m.WallS <= 0 || m.UserS+m.SysS <= 0 || m.BytesPerSec <= 0 {
			t.Errorf("%s %s %d: wall %v user %v sys %v B/s %v: want all > 0", m.Mode, m.Algorithm, m.BlockSize, m.WallS, m.UserS, m.SysS, m.BytesPerSec)
		}
		if m.Timing != "wall" {
			t.Errorf("%s %s %d: timing %q, want wall", m.Mode, m.Algorithm, m.BlockSize, m.Timing)
		}
		got[key{m.Mode, m.Algorithm, m.BlockSize}] = true
	}
	for _, mode := range []string{"soft", "cpu"} {
		for _, alg := range []string{"aes-128-cbc", "sha256"} {
			for _, size := range []int{16, 64, 256, 1024, 8192, 16384} {
				if !got[key{mode, alg, size}] {
					t.Errorf("no point for %s %s %d", mode, alg, size)
				}
			}
		}
	}
}

// TestRunHelpNamesEveryMode: run's --modes help is protocol.Modes', so every mode of the table is in it, with its
// Help, and those measured only when named come after the rest.
func TestRunHelpNamesEveryMode(t *testing.T) {
	stdout, stderr, code := runFleet(t, "run", "--help")
	if code != 0 {
		t.Fatalf("fleet run --help: exit %d\n%s", code, stderr)
	}
	var line string
	for _, entry := range flagEntries(stdout) { // its usage folds over several lines
		if strings.Contains(entry, "--modes MODES") {
			line = entry
		}
	}
	if line == "" {
		t.Fatalf("no --modes in fleet run --help:\n%s", stdout)
	}
	for _, s := range protocol.Modes {
		name := s.Mode
		if s.Help != "" {
			name += " (" + s.Help + ")"
		}
		if !strings.Contains(line, " "+name) {
			t.Errorf("--modes help %q does not name %q", line, name)
		}
	}
	if i, j := strings.Index(line, "provider:NAME"), strings.Index(line, " "+protocol.ModeSSH+" ("); i < 0 || j < i {
		t.Errorf("--modes help %q: want ssh (measured only when named) after the probed modes and provider:NAME", line)
	}
}
