package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// shellProfile is a profile that measures the local board through its shell (sh -s, the host's /bin/sh) with
// the board's openssl; the local board's validity limits are lifted (a shared machine is busy, and validity is
// not what these tests judge).
const shellProfile = `
[boards.local.validity]
background_peak_pct = 100
background_avg_pct = 100
throttle_pct = 100

[profiles.shellpath]
agent = "shell"
modes = ["cpu"]
algorithms = ["aes-128-cbc"]
sizes = [4096]
seconds = 1
`

// writeShellInventory writes boards.toml in dir: shellProfile, with the local board's openssl and env lines
// (TOML, "" for none) and the profile's modes.
func writeShellInventory(t *testing.T, dir, boardLines, modes string) string {
	t.Helper()
	toml := strings.Replace(shellProfile, `modes = ["cpu"]`, "modes = "+modes, 1)
	toml = strings.Replace(toml, "[boards.local.validity]\n", "[boards.local]\n"+boardLines+"\n[boards.local.validity]\n", 1)
	inv := filepath.Join(dir, "boards.toml")
	if err := os.WriteFile(inv, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestRunRefusesUnknownAlgorithmShellPath is TestRunRefusesUnknownAlgorithm on the shell path: the board's own
// openssl lists its ciphers and digests through the session's probe, and `run --algorithms aes128cbc` is refused
// after that probe and before anything is measured, exit 2, with the nearest name; nothing is stored.
func TestRunRefusesUnknownAlgorithmShellPath(t *testing.T) {
	needOpenSSL(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	inv := writeShellInventory(t, dir, "", `["cpu"]`)
	stdout, stderr, code := runFleet(t, "--inventory", inv, "run", "--boards", "local", "--profile", "shellpath", "--db", db,
		"--algorithms", "aes128cbc,sha256")
	if code != exitUsage {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, stdout, stderr)
	}
	if !strings.Contains(stderr, "shell path") {
		t.Errorf("the board was not probed through its shell:\n%s", stderr)
	}
	if want := "aes128cbc: not an algorithm of board local's OpenSSL "; !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, "did you mean aes-128-cbc?") || strings.Contains(stderr, "sha256: not an algorithm") {
		t.Errorf("stderr does not say %q… with a did-you-mean (and nothing of sha256):\n%s", want, stderr)
	}
	if strings.Contains(stderr, "sweep: ") || strings.Contains(stderr, "verified") {
		t.Errorf("the sweep started before the refusal:\n%s", stderr)
	}
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, err := s.Runs(context.Background(), store.RunFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("the refused run is in the history: %+v (%v)", runs, err)
	}
}

// TestRunShellPathConcurrencyCheck: an accelerated mode measured through the shell path is verified under
// parallel workers on the board too. The board's openssl is fleet/testdata/shell/openssl-concurrent, right one
// command at a time and wrong when two encs overlap, with an engine fleetfake (the system's openssl under
// another name) for an accelerated mode: the run exits 3 naming board, mode, algorithm and the concurrency
// check, and its point is stored wrong. With --verify-threads 0 the same openssl passes (the one-at-a-time
// checks cannot see it), and the wrapper without its fault passes with the default workers (the board's cores).
func TestRunShellPathConcurrencyCheck(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("runs openssl through the shell path for about a minute")
	}
	script, err := os.ReadFile("../../fleet/testdata/shell/openssl-concurrent")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fault string
		args        []string
		code        int
		verdict     string
	}{
		{"wrong under load", "wrong", []string{"--verify-threads", "2"}, exitBoardFailed, protocol.VerificationWrong},
		{"no concurrency check", "wrong", []string{"--verify-threads", "0"}, 0, protocol.VerificationOK},
		{"right", "none", nil, 0, protocol.VerificationOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fake := filepath.Join(dir, "openssl")
			if err := os.WriteFile(fake, script, 0o755); err != nil {
				t.Fatal(err)
			}
			inv := writeShellInventory(t, dir, `openssl = "`+fake+`"`+"\n"+`env = { FLEET_FAKE = "`+tc.fault+`" }`, `["engine:fleetfake"]`)
			db := filepath.Join(dir, "fleet.db")
			stdout, stderr, code := runFleet(t, append([]string{"--inventory", inv, "run", "--boards", "local", "--profile", "shellpath", "--db", db}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.code != 0 && !strings.Contains(stderr, "local: wrong output: engine:fleetfake aes-128-cbc: concurrency (2 workers, 2 s): ") {
				t.Errorf("the run's output does not name board, mode, algorithm and the concurrency check:\n%s", stderr)
			}
			m := onlyPoint(t, db, stderr)
			if m.Verification != tc.verdict || tc.verdict == protocol.VerificationWrong && !strings.Contains(m.VerificationDetail, "outputs of encrypt") {
				t.Errorf("point %s %s: verification %q %q, want %s", m.Mode, m.Algorithm, m.Verification, m.VerificationDetail, tc.verdict)
			}
		})
	}
}

// TestRunShellPathHwmonPower: a shell-path board whose boards.toml names a hwmon rail is measured and exits 0
// (before, the sweep's "power:" error made the board partial, exit 3); the run says once under the board that its
// energy is unknown and why, and the stored point carries the same reason, with no figure.
func TestRunShellPathHwmonPower(t *testing.T) {
	needOpenSSL(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	inv := writeShellInventory(t, dir, `power = "hwmon:ina226"`, `["cpu"]`)
	stdout, stderr, code := runFleet(t, "--inventory", inv, "run", "--boards", "local", "--profile", "shellpath", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	const why = "the shell path does not sample the board's hwmon rails"
	if n := strings.Count(unfold(stderr), "energy: unknown: "+why); n != 1 || strings.Contains(stderr, "power: ") {
		t.Errorf("the run says %d times that the energy is unknown (want once, and no power error):\n%s", n, stderr)
	}
	m := onlyPoint(t, db, stderr)
	if !strings.Contains(m.EnergyUnknown, why) || m.EnergyJ != nil || m.EnergyUJPerByte != nil {
		t.Errorf("point: energy %v µJ/B %v unknown %q, want unknown: %s", m.EnergyJ, m.EnergyUJPerByte, m.EnergyUnknown, why)
	}
}

// onlyPoint is the one point a test's run stored in db; more or fewer fail the test with the run's stderr.
func onlyPoint(t *testing.T, db, stderr string) store.Measurement {
	t.Helper()
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms, err := s.Measurements(context.Background(), store.Filter{})
	if err != nil || len(ms) != 1 {
		t.Fatalf("%d points (%v), want 1\n%s", len(ms), err, stderr)
	}
	return ms[0]
}
