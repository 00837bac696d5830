package lab_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestScript runs the parts of lab/lab that need no QEMU, so `go test ./...` catches a broken script quickly.
func TestScript(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := repoRoot(t)
	lab := filepath.Join(root, "lab", "lab")
	env := []string{"FLEET_LAB_DIR=" + t.TempDir(), "FLEET_LAB_CACHE=" + t.TempDir()}

	out, err := command(t, ctx, env, root, lab, "status")
	if err == nil {
		t.Errorf("lab status with no board up: exit 0, want 1")
	}
	for _, board := range []string{"qemu-arm64", "qemu-armv7"} {
		if !strings.Contains(out, board+"  down") {
			t.Errorf("lab status: no %q in\n%s", board+"  down", out)
		}
	}
	if _, err := command(t, ctx, env, root, lab, "down"); err != nil {
		t.Errorf("lab down with no board up: %v, want exit 0", err)
	}
	if _, err := command(t, ctx, append(env, "FLEET_LAB_BOARDS=qemu-riscv"), root, lab, "status"); err == nil {
		t.Errorf("lab status with FLEET_LAB_BOARDS=qemu-riscv: exit 0, want an error")
	}
	if _, err := command(t, ctx, append(env, "FLEET_LAB_CRYPTODEV=yes"), root, lab, "down"); err == nil {
		t.Errorf("lab down with FLEET_LAB_CRYPTODEV=yes: exit 0, want an error (auto, require or off)")
	}
	if _, err := command(t, ctx, env, root, lab, "no-such-command"); err == nil {
		t.Errorf("lab no-such-command: exit 0, want an error")
	}

	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Log("shellcheck not installed: skipping the lint")
		return
	}
	if _, err := command(t, ctx, nil, root, "shellcheck", lab, filepath.Join(root, "lab", "e2e.sh")); err != nil {
		t.Errorf("shellcheck: %v", err)
	}
}
