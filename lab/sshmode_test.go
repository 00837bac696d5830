package lab_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// sshCiphers are mode ssh's default ciphers (protocol.DefaultSSHCiphers).
var sshCiphers = []string{"aes128-ctr", "aes256-ctr", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
	"chacha20-poly1305@openssh.com"}

// checkSSHMode is mode ssh on the emulated ARM boards and their Dropbear server: `fleet run --modes ssh` measures
// at least one cipher both ways on each board, each default cipher is either measured or skipped because the
// server does not offer it, and `fleet compare --modes ssh` prints the SSH table.
func checkSSHMode(t *testing.T, ctx context.Context, root, fleetBin, inv, db string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, fleetBin, "--inventory", inv, "--db", db,
		"run", "--boards", "qemu-arm64,qemu-armv7", "--modes", "ssh", "--sizes", "4194304")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	t.Logf("$ fleet run --modes ssh\n%s", out)
	if err != nil {
		t.Fatalf("fleet run --modes ssh: %v", err)
	}
	fleet := func(args ...string) string {
		t.Helper()
		return mustRun(t, ctx, nil, root, fleetBin, append([]string{"--inventory", inv, "--db", db}, args...)...)
	}
	var points []struct {
		point
		Op string `json:"op"`
	}
	if err := json.Unmarshal([]byte(fleet("results", "--mode", "ssh", "--format", "json")), &points); err != nil {
		t.Fatalf("results --format json: %v", err)
	}
	measured := map[string]map[string]int{} // board → cipher → directions measured
	for _, p := range points {
		if p.Failed || p.BytesPerSec <= 0 {
			t.Errorf("%s ssh %s %s: failed=%v %q rate=%v", p.Board, p.Algorithm, p.Op, p.Failed, p.Error, p.BytesPerSec)
			continue
		}
		if !strings.HasPrefix(p.Driver, p.Algorithm+", ") {
			t.Errorf("%s ssh %s: negotiated %q, want the cipher read back", p.Board, p.Algorithm, p.Driver)
		}
		if measured[p.Board] == nil {
			measured[p.Board] = map[string]int{}
		}
		measured[p.Board][p.Algorithm]++
	}
	show := fleet("show", "latest")
	for _, board := range []string{"qemu-arm64", "qemu-armv7"} {
		both := 0
		for _, c := range sshCiphers {
			switch measured[board][c] {
			case 2:
				both++
			case 0:
				if !strings.Contains(show, "ssh "+c+": server does not offer "+c) {
					t.Errorf("%s: %s neither measured nor skipped as not offered:\n%s", board, c, show)
				}
			default:
				t.Errorf("%s: %s measured one way only", board, c)
			}
		}
		if both == 0 {
			t.Errorf("%s: no cipher measured both ways", board)
		}
	}
	if cmp := fleet("compare", "--modes", "ssh"); !strings.Contains(cmp, "SSH throughput, 4 MiB each way") {
		t.Errorf("compare --modes ssh: no SSH table:\n%s", cmp)
	}
}
