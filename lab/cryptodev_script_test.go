package lab_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
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
	// the pinned hash replaced by the test tar's; lab/cryptodev/ is there, but FLEET_LAB_CRYPTODEV_TAR comes first
	run := func(t *testing.T, cache string, env ...string) (string, string, error) {
		t.Helper()
		return runCryptodevSource(ctx, root, cache, append(env, "TAR_SHA256="+hex.EncodeToString(sum[:]))...)
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
	// no copy, no vendored source and a URL that cannot be fetched: no source, a reason, and the build goes on
	out, log, err := run(t, cache, "FLEET_LAB_CRYPTODEV_TAR=", "VENDOR="+filepath.Join(dir, "no-vendored"),
		"URL=file://"+filepath.Join(dir, "gone.tar.gz"))
	if err != nil || out != "" || !strings.Contains(log, "no cryptodev-linux 1.14 source: file://") {
		t.Errorf("unreachable source: printed %q (%v), log %q; want nothing and the reason", out, err, log)
	}
}

// cryptodevSourceScript: lab/lab's own cryptodev_source and cryptodev_vendored with their settings, in a cache of
// the test's; TAR_SHA256, VENDOR and URL stand in for the pinned tar hash, lab/cryptodev/ and the release URL.
const cryptodevSourceScript = `set -euo pipefail
LAB_SRC=$(dirname "$1")
eval "$(sed -n '/^die()/p; /^log()/p; /^CRYPTODEV_[A-Z0-9_]*=/p; /^cryptodev_source()/,/^}/p; /^cryptodev_vendored()/,/^}/p' "$1")"
CACHE=$2
[[ -z ${TAR_SHA256:-} ]] || CRYPTODEV_TAR_SHA256=$TAR_SHA256
[[ -z ${VENDOR:-} ]] || CRYPTODEV_VENDOR=$VENDOR
[[ -z ${URL:-} ]] || CRYPTODEV_URL=$URL
cryptodev_source`

// runCryptodevSource runs cryptodevSourceScript and returns what it printed (trimmed), its log and its error.
func runCryptodevSource(ctx context.Context, root, cache string, env ...string) (string, string, error) {
	cmd := exec.CommandContext(ctx, "bash", "-c", cryptodevSourceScript, "lab-test", filepath.Join(root, "lab", "lab"), cache)
	cmd.Env = append(os.Environ(), append([]string{"FLEET_LAB_CRYPTODEV_TAR=", "TAR_SHA256=", "VENDOR=", "URL="}, env...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return strings.TrimSpace(stdout.String()), stderr.String(), err
}

// TestCryptodevVendored: without FLEET_LAB_CRYPTODEV_TAR, cryptodev_source packs the vendored lab/cryptodev/
// (no network, no fallback URL tried: the URL here cannot be fetched) into a tar with the release's prefix that
// holds exactly the files SHA256SUMS lists, byte for byte, and the same bytes on every call, so the build's cache
// keys stay put. The pin of SHA256SUMS in lab/lab is the real file's. An edited file, an extra file or an edited
// list stops the build and caches nothing.
func TestCryptodevVendored(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := repoRoot(t)
	vendored := filepath.Join(root, "lab", "cryptodev")
	const prefix = "cryptodev-linux-cryptodev-linux-1.14/"
	sums, err := os.ReadFile(filepath.Join(vendored, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // file in the tar → sha256
	for _, line := range strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS: line %q is not \"SHA256  FILE\"", line)
		}
		want[prefix+name] = sum
	}
	// what the module build and the devcrypto engine read, and the license, must be there
	for _, f := range []string{"Makefile", "main.c", "ioctl.c", "cryptlib.c", "authenc.c", "zc.c", "util.c", "crypto/cryptodev.h", "COPYING"} {
		if _, ok := want[prefix+f]; !ok {
			t.Errorf("SHA256SUMS does not list %s", f)
		}
	}
	noURL := "URL=file://" + filepath.Join(t.TempDir(), "gone.tar.gz")
	cache := t.TempDir()
	tarPath := filepath.Join(cache, "src", "cryptodev-linux-cryptodev-linux-1.14-vendored.tar")
	var first []byte
	for i := 0; i < 2; i++ {
		out, log, err := runCryptodevSource(ctx, root, cache, noURL)
		if err != nil || out != tarPath || !strings.Contains(log, "(vendored; SHA256SUMS and every file checked)") {
			t.Fatalf("call %d: printed %q (%v), log %q; want %q and the vendored source named", i+1, out, err, log, tarPath)
		}
		b, err := os.ReadFile(tarPath)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Errorf("the vendored tar differs from one call to the next: the cache keys would change")
		}
	}
	got := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(first))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		hash := sha256.New()
		if _, err := io.Copy(hash, tr); err != nil {
			t.Fatal(err)
		}
		got[h.Name] = hex.EncodeToString(hash.Sum(nil))
	}
	for name, sum := range want {
		if got[name] != sum {
			t.Errorf("vendored tar: %s has sha256 %q, SHA256SUMS says %s", name, got[name], sum)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("vendored tar: %s is not in SHA256SUMS", name)
		}
	}

	// tampered copies of lab/cryptodev/
	for _, c := range []struct {
		name, log string
		change    func(dir string) error
	}{
		{"edited file", "not cryptodev-linux 1.14's files (sha256sum --check SHA256SUMS): ioctl.c: FAILED", func(dir string) error {
			return appendFile(filepath.Join(dir, "ioctl.c"), "/* changed */\n")
		}},
		{"extra file", "files SHA256SUMS does not list: crypto/extra.c", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "crypto", "extra.c"), []byte("int x;\n"), 0o644)
		}},
		{"edited list", "SHA256SUMS: its sha256 is ", func(dir string) error {
			return appendFile(filepath.Join(dir, "SHA256SUMS"), strings.Repeat("0", 64)+"  extra.c\n")
		}},
		{"missing file", "not cryptodev-linux 1.14's files (sha256sum --check SHA256SUMS): ", func(dir string) error {
			return os.Remove(filepath.Join(dir, "zc.c"))
		}},
		{"no list", "no SHA256SUMS", func(dir string) error {
			return os.Remove(filepath.Join(dir, "SHA256SUMS"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cryptodev")
			if err := os.CopyFS(dir, os.DirFS(vendored)); err != nil {
				t.Fatal(err)
			}
			if err := c.change(dir); err != nil {
				t.Fatal(err)
			}
			cache := t.TempDir()
			out, log, err := runCryptodevSource(ctx, root, cache, "VENDOR="+dir, noURL)
			if err == nil || out != "" || !strings.Contains(log, c.log) {
				t.Errorf("printed %q (%v), log %q; want a failure with %q", out, err, log, c.log)
			}
			if ents, _ := os.ReadDir(filepath.Join(cache, "src")); len(ents) != 0 {
				t.Errorf("the cache holds %d files after the failure", len(ents))
			}
		})
	}
}

func appendFile(name, s string) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
