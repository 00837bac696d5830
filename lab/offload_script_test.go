package lab_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestModuleListWithoutVirtioCrypto: a kernel without virtio_crypto.ko still gets an image (module_list leaves the
// driver out of /init's list), and the build says which mode the board cannot offer. It runs lab/lab's own
// functions (log, init_modules, module_list and the offload settings) on a fake modules tree, without QEMU.
func TestModuleListWithoutVirtioCrypto(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := repoRoot(t)
	tree := t.TempDir()
	dir := filepath.Join(tree, "usr", "lib", "modules", "6.1.0-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dep := "kernel/drivers/virtio/virtio_mmio.ko:\nkernel/crypto/af_alg.ko:\nkernel/crypto/crypto_engine.ko:\n"
	if err := os.WriteFile(filepath.Join(dir, "modules.dep"), []byte(dep), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `set -euo pipefail
lab=$1 tree=$2
eval "$(sed -n '/^log()/p; /^OFFLOAD_[A-Z]*=/p; /^init_modules()/,/^}/p; /^module_list()/,/^}/p' "$lab")"
board=qemu-test ARCH_MODULES=""
module_list "$tree" 6.1.0-test`
	moduleList := func(t *testing.T, deps string) (string, string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "modules.dep"), []byte(deps), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, "bash", "-c", script, "lab-test", filepath.Join(root, "lab", "lab"), tree)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("module_list: %v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, warn := moduleList(t, dep)
	if strings.Contains(out, "virtio_crypto") || !strings.Contains(out, "virtio_mmio") {
		t.Errorf("module_list without the driver printed\n%s\nwant virtio_mmio and no virtio_crypto", out)
	}
	if want := "qemu-test: kernel 6.1.0-test has no virtio_crypto driver: this board cannot offer mode kcapi:virtio_crypto_aes_cbc"; !strings.Contains(warn, want) {
		t.Errorf("module_list without the driver warned\n%s\nwant %q", warn, want)
	}
	out, warn = moduleList(t, dep+"kernel/drivers/crypto/virtio/virtio_crypto.ko: kernel/crypto/crypto_engine.ko\n")
	if !strings.Contains(out, "virtio_crypto\n") || strings.Contains(warn, "cannot offer") {
		t.Errorf("module_list with the driver printed\n%s\nand warned\n%s\nwant virtio_crypto listed, no warning about it", out, warn)
	}
}
