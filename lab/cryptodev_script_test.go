package lab_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCryptodevSource runs lab/lab's cryptodev_source without QEMU or a network: a copy given in
// FLEET_LAB_CRYPTODEV_TAR (.tar.gz or .tar) is checked against the pinned sha256 of the uncompressed tar and
// cached; a wrong one or a missing file stops the build; a source that cannot be fetched leaves the board
// without /dev/crypto and says why.
func TestCryptodevSource(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := repoRoot(t)
	dir := t.TempDir()
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	body := []byte("#define CIOCGSESSINFO\n")
	if err := tw.WriteHeader(&tar.Header{Name: "cryptodev-linux-cryptodev-linux-1.14/crypto/cryptodev.h", Mode: 0o644, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw.Bytes())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	tgz, plain, wrong := filepath.Join(dir, "src.tar.gz"), filepath.Join(dir, "src.tar"), filepath.Join(dir, "wrong.tar")
	for f, b := range map[string][]byte{tgz: gz.Bytes(), plain: raw.Bytes(), wrong: append(raw.Bytes(), 0)} {
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the script's own functions and settings, the pinned hash replaced by the test tar's
	script := `set -euo pipefail
eval "$(sed -n '/^die()/p; /^log()/p; /^CRYPTODEV_[A-Z0-9_]*=/p; /^cryptodev_source()/,/^}/p' "$1")"
CACHE=$2 CRYPTODEV_TAR_SHA256=$3
[[ -z ${URL:-} ]] || CRYPTODEV_URL=$URL
cryptodev_source`
	run := func(t *testing.T, cache string, env ...string) (string, string, error) {
		t.Helper()
		cmd := exec.CommandContext(ctx, "bash", "-c", script, "lab-test", filepath.Join(root, "lab", "lab"), cache, hex.EncodeToString(sum[:]))
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return strings.TrimSpace(stdout.String()), stderr.String(), err
	}
	for _, src := range []string{tgz, plain} {
		cache := t.TempDir()
		out, log, err := run(t, cache, "FLEET_LAB_CRYPTODEV_TAR="+src)
		want := filepath.Join(cache, "src", "cryptodev-linux-cryptodev-linux-1.14.tar")
		if err != nil || out != want {
			t.Fatalf("%s: printed %q (%v), want %q\n%s", src, out, err, want, log)
		}
		if b, err := os.ReadFile(want); err != nil || !bytes.Equal(b, raw.Bytes()) {
			t.Errorf("%s: the cached tar is not the uncompressed source (%v)", src, err)
		}
		// cached: no copy needed the second time
		if out, _, err := run(t, cache, "FLEET_LAB_CRYPTODEV_TAR="+filepath.Join(dir, "gone")); err != nil || out != want {
			t.Errorf("second call: printed %q (%v), want the cached %q", out, err, want)
		}
	}
	cache := t.TempDir()
	if out, log, err := run(t, cache, "FLEET_LAB_CRYPTODEV_TAR="+wrong); err == nil || out != "" || !strings.Contains(log, "the tar's sha256 is ") {
		t.Errorf("wrong tar: printed %q (%v), log %q; want a failure naming the sha256", out, err, log)
	}
	if _, err := os.Stat(filepath.Join(cache, "src", "cryptodev-linux-cryptodev-linux-1.14.tar")); err == nil {
		t.Errorf("wrong tar: it was cached")
	}
	if _, log, err := run(t, cache, "FLEET_LAB_CRYPTODEV_TAR="+filepath.Join(dir, "gone")); err == nil || !strings.Contains(log, "no such file") {
		t.Errorf("missing tar: %v, log %q; want a failure naming the file", err, log)
	}
	// no copy and a URL that cannot be fetched: no source, a reason, and the build goes on
	out, log, err := run(t, cache, "FLEET_LAB_CRYPTODEV_TAR=", "URL=file://"+filepath.Join(dir, "gone.tar.gz"))
	if err != nil || out != "" || !strings.Contains(log, "no cryptodev-linux 1.14 source: file://") {
		t.Errorf("unreachable source: printed %q (%v), log %q; want nothing and the reason", out, err, log)
	}
}
