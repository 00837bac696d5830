package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestRunSSHFlagsRefused: what mode ssh cannot measure is refused before anything is opened, exit 2, naming
// the flag, the accepted values and the closest cipher.
func TestRunSSHFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"unknown cipher", []string{"--modes", "ssh", "--algorithms", "aes128-cbc"},
			[]string{`unknown SSH cipher "aes128-cbc": did you mean "aes128-ctr"`, "mode ssh knows aes128-ctr"}},
		{"openssl name for a cipher", []string{"--modes", "ssh", "--algorithms", "aes-128-ctr"},
			[]string{`--algorithms: unknown SSH cipher "aes-128-ctr": did you mean "aes128-ctr"`}},
		{"misspelt openssh cipher", []string{"--modes", "ssh", "--algorithms", "aes256-gcm@openssh.org"},
			[]string{`unknown SSH cipher "aes256-gcm@openssh.org": did you mean "aes256-gcm@openssh.com"`}},
		{"cipher without mode ssh", []string{"--modes", "cpu", "--algorithms", "aes128-ctr"},
			[]string{"--algorithms aes128-ctr is an SSH cipher: add mode ssh"}},
		{"transfer too small", []string{"--modes", "ssh", "--sizes", "1024"},
			[]string{"--sizes: 1024 bytes per transfer is out of range", "1048576 (1 MiB) to 1073741824 (1 GiB)"}},
		{"transfer not a number", []string{"--modes", "ssh", "--sizes", "64M"},
			[]string{`--sizes: "64M" is not a number of bytes per transfer`}},
		{"sizes with mixed modes", []string{"--modes", "cpu,ssh", "--sizes", "16,1024"},
			[]string{"--sizes with --modes mixing ssh and openssl modes"}},
		{"only ciphers with mixed modes", []string{"--modes", "cpu,ssh", "--algorithms", "aes128-ctr"},
			[]string{"only SSH ciphers, but --modes also names openssl modes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--db", filepath.Join(t.TempDir(), "fleet.db"), "run", "--boards", "local"}, tc.args...)
			wantUsage(t, args, tc.wants...)
		})
	}
}

// storeSSHRun stores a run of board am64x with mode ssh points of two ciphers; the cpu aes-128-cbc points of
// seededDB are of another algorithm, so only an aes-128-ctr point gives a ratio.
func storeSSHRun(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, store.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.BoardStarted(ctx, "am64x"); err != nil {
		t.Fatal(err)
	}
	pts := []protocol.Point{
		{Mode: "cpu", Algorithm: "aes-128-ctr", Op: "encrypt", BlockSize: 16384, Threads: 1, Timing: "wall", BytesPerSec: 500e6, CPUPct: 99},
	}
	for _, c := range []struct {
		cipher, neg string
		up, down    float64
	}{{"aes128-ctr", "aes128-ctr, hmac-sha2-256-etm@openssh.com", 40e6, 55e6},
		{"chacha20-poly1305@openssh.com", "chacha20-poly1305@openssh.com, implicit MAC", 30e6, 33e6}} {
		for op, v := range map[string]float64{"upload": c.up, "download": c.down} {
			pts = append(pts, protocol.Point{Mode: "ssh", Algorithm: c.cipher, Op: op, BlockSize: 64 << 20, Threads: 1,
				Driver: c.neg, Count: 64 << 20, Timing: "wall", BytesPerSec: v, CPUPct: 97,
				Flags: []string{"ssh-server=SSH-2.0-OpenSSH_9.2p1", "controller-cpu=35.0"}})
		}
	}
	for _, p := range pts {
		if err := w.Point(ctx, "am64x", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.BoardFinished(ctx, "am64x", "ok", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
}

// TestCompareModesSSH: compare --modes ssh prints the SSH table alone with SSH's share of the raw cipher, plain
// compare prints the usual table and then the SSH table, and --modes cpu leaves the SSH table out.
func TestCompareModesSSH(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeSSHRun(t, db)
	goldenFleet(t, "compare-modes-ssh", db, "compare", "--modes", "ssh")
	stdout, stderr, code := runFleet(t, "--db", db, "compare", "--modes", "ssh")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, "aes-128-ctr  ") || !strings.Contains(stdout, "SSH reaches 8 % uploading and 11 % downloading") {
		t.Errorf("--modes ssh: want the SSH table alone with the ratio:\n%s", stdout)
	}
	stdout, _, code = runFleet(t, "--db", db, "compare")
	if code != 0 || !strings.Contains(stdout, "aes-128-ctr") || !strings.Contains(stdout, "SSH throughput, 64 MiB each way") {
		t.Errorf("plain compare: exit %d, want both tables:\n%s", code, stdout)
	}
	stdout, _, code = runFleet(t, "--db", db, "compare", "--modes", "cpu")
	if code != 0 || strings.Contains(stdout, "SSH throughput") {
		t.Errorf("--modes cpu: exit %d, want no SSH table:\n%s", code, stdout)
	}
	wantUsage(t, []string{"--db", db, "compare", "--format", "json"}, "--format json holds one table")
	stdout, _, code = runFleet(t, "--db", db, "compare", "--modes", "ssh", "--format", "csv")
	if code != 0 || !strings.HasPrefix(stdout, "board,cipher,size,op,") {
		t.Errorf("--modes ssh --format csv: exit %d:\n%s", code, stdout)
	}
}

// TestReportModeSSH: fleet report draws a run's mode ssh points as the SSH table, with SSH's share of the raw
// cipher read from the store, beside the comparison of its other points; not as an openssl chart per cipher.
func TestReportModeSSH(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeSSHRun(t, db)
	page, stderr, code := runFleet(t, "--db", db, "report", "--output", "-")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"<h2>SSH throughput</h2>", "SSH throughput per cipher", "<td>chacha20-poly1305@openssh.com</td>",
		"SSH reaches 8 % uploading and 11 % downloading", "<h3>aes-128-ctr</h3>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "<h3>aes128-ctr</h3>") {
		t.Error("report draws the ssh points as an openssl chart of aes128-ctr")
	}
}
