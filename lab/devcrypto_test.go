package lab_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// imageCryptodev is what qemu-arm64's image says of its cryptodev module ("cryptodev-linux 1.14"), or "" when
// lab/lab built it without one (no source to be had and FLEET_LAB_CRYPTODEV not "require").
func imageCryptodev(t *testing.T, root string) string {
	t.Helper()
	cache := os.Getenv("FLEET_LAB_CACHE")
	if cache == "" {
		cache = filepath.Join(root, "lab", "cache")
	}
	b, err := os.ReadFile(filepath.Join(cache, "images", "qemu-arm64", "cryptodev"))
	if os.IsNotExist(err) {
		if os.Getenv("FLEET_LAB_CRYPTODEV") == "require" {
			t.Fatalf("FLEET_LAB_CRYPTODEV=require, yet the qemu-arm64 image has no cryptodev module")
		}
		t.Logf("the qemu-arm64 image has no cryptodev module (lab/lab build said why): devcrypto must be a skip")
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// hasDevcrypto: board measures mode devcrypto. qemu-arm64's image has the cryptodev module and, built with it,
// OpenSSL's devcrypto engine (lab/devcrypto: Debian's OpenSSL 3.0 ships none); qemu-armv7's has neither.
func hasDevcrypto(board, cryptodev string) bool {
	return board == "qemu-arm64" && cryptodev != ""
}

// checkDevcrypto: qemu-arm64 boots with the cryptodev module loaded and /dev/crypto present, and the agent's own
// tests, cross-built for arm64 and run on the board against the real module, pass: the struct layout, the driver
// cryptodev names for a session (CIOCGSESSINFO) being one /proc/crypto lists for the algorithm, and a devcrypto
// sweep storing that driver with each point. Without the module the console must say there is no /dev/crypto.
func checkDevcrypto(t *testing.T, ctx context.Context, root, runDir, cryptodev string) {
	t.Helper()
	console, err := os.ReadFile(filepath.Join(runDir, "qemu-arm64.log"))
	if err != nil {
		t.Fatal(err)
	}
	if cryptodev == "" {
		if !strings.Contains(string(console), "lab: no /dev/crypto: this image has no cryptodev module") {
			t.Errorf("qemu-arm64 console: want \"no /dev/crypto: this image has no cryptodev module\"")
		}
		return
	}
	if want := "lab: /dev/crypto: " + cryptodev; !strings.Contains(string(console), want) {
		t.Fatalf("qemu-arm64 console: no line %q (was the module loaded?)", want)
	}
	bin := filepath.Join(t.TempDir(), "agent.test")
	mustRun(t, ctx, []string{"GOARCH=arm64", "CGO_ENABLED=0"}, root, "go", "test", "-c", "-o", bin, "./agent")
	port, err := os.ReadFile(filepath.Join(runDir, "qemu-arm64.port"))
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, ctx, nil, root, "scp", "-q", "-i", filepath.Join(runDir, "id_ed25519"),
		"-o", "UserKnownHostsFile="+filepath.Join(runDir, "known_hosts"), "-o", "StrictHostKeyChecking=yes",
		"-o", "BatchMode=yes", "-P", strings.TrimSpace(string(port)), bin, "root@127.0.0.1:/tmp/agent.test")
	env := []string{"FLEET_LAB_DIR=" + runDir, "FLEET_LAB_BOARDS=qemu-arm64"}
	out, err := command(t, ctx, env, root, filepath.Join(root, "lab", "lab"), "ssh", "qemu-arm64",
		"cd /tmp && FLEET_REQUIRE_DEVCRYPTO=1 ./agent.test -test.v -test.run "+
			"'^(TestCryptodevLayout|TestDevcryptoDriverDevice|TestSweepDevcryptoDriverDevice)$' 2>&1")
	if err != nil {
		t.Fatalf("agent tests on qemu-arm64's /dev/crypto: %v", err)
	}
	for _, name := range []string{"TestCryptodevLayout", "TestDevcryptoDriverDevice", "TestSweepDevcryptoDriverDevice"} {
		if !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("agent tests on qemu-arm64: %s did not pass:\n%s", name, out)
		}
	}
	m := regexp.MustCompile(`aes-128-cbc \(cbc\(aes\)\): (\S+) on arm64`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("agent tests on qemu-arm64: no session driver for aes-128-cbc in\n%s", out)
	}
	t.Logf("cryptodev serves a cbc(aes) session on qemu-arm64 with %s", m[1])
}
