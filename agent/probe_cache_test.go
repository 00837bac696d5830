package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loggingOpenSSL writes an openssl that logs each start to log and prints version as its version.
func loggingOpenSSL(t *testing.T, path, log, sslDir, version string) {
	t.Helper()
	script := `#!/bin/sh
echo "$*" >> '` + log + `'
case "$1" in
version) printf 'OpenSSL ` + version + ` 1 Dec 2026\nOPENSSLDIR: "` + sslDir + `"\nENGINESDIR: "` + sslDir + `/engines"\n';;
engine) echo "($3) fake"; echo "     [ unavailable ]";;
esac
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestProbeCacheInvalidation: the probe's openssl commands run once and are then answered from the cache, until
// the openssl binary, its configuration, the boot or the engines asked for change.
func TestProbeCacheInvalidation(t *testing.T) {
	root := fakeBoardRoot(t, false)
	bootID := filepath.Join(root, "proc/sys/kernel/random/boot_id")
	os.MkdirAll(filepath.Dir(bootID), 0o755)
	setBoot := func(id string) {
		if err := os.WriteFile(bootID, []byte(id+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setBoot("boot-1")
	dir := t.TempDir()
	log := filepath.Join(dir, "starts")
	sslDir := filepath.Join(dir, "ssl")
	os.MkdirAll(sslDir, 0o755)
	conf := filepath.Join(sslDir, "openssl.cnf")
	os.WriteFile(conf, []byte("openssl_conf = init\n"), 0o644)
	openssl := filepath.Join(dir, "bin", "openssl")
	os.MkdirAll(filepath.Dir(openssl), 0o755)
	loggingOpenSSL(t, openssl, log, sslDir, "3.0.90")
	cache := t.TempDir()
	starts := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "\n")
	}
	opts := ProbeOptions{OpenSSL: openssl, Root: root, CacheDir: cache}

	steps := []struct {
		name    string
		change  func()
		engines []string
		want    string // ProbeCache
		version string
	}{
		{"first probe", nil, nil, "miss", "3.0.90"},
		{"unchanged", nil, nil, "hit", "3.0.90"},
		{"rebooted", func() { setBoot("boot-2") }, nil, "miss", "3.0.90"},
		{"unchanged after the reboot", nil, nil, "hit", "3.0.90"},
		{"openssl replaced", func() {
			time.Sleep(10 * time.Millisecond) // a distinct mtime on coarse clocks
			loggingOpenSSL(t, openssl, log, sslDir, "3.0.91")
		}, nil, "miss", "3.0.91"},
		{"unchanged after the upgrade", nil, nil, "hit", "3.0.91"},
		{"configuration edited", func() {
			time.Sleep(10 * time.Millisecond)
			os.WriteFile(conf, []byte("openssl_conf = init\n[init]\nengines = e\n"), 0o644)
		}, nil, "miss", "3.0.91"},
		{"another engine asked for", nil, []string{"vendor"}, "miss", "3.0.91"},
		{"that engine again", nil, []string{"vendor"}, "hit", "3.0.91"},
		{"the first list again", nil, nil, "hit", "3.0.91"},
	}
	for _, s := range steps {
		if s.change != nil {
			s.change()
		}
		o := opts
		o.Engines = s.engines
		n := starts()
		f := Probe(context.Background(), o)
		ran := starts() - n
		if f.ProbeCache != s.want {
			t.Errorf("%s: probe cache %q, want %q (errors %q)", s.name, f.ProbeCache, s.want, f.Errors)
		}
		if s.want == "hit" && ran != 0 {
			t.Errorf("%s: %d openssl starts on a cache hit, want 0", s.name, ran)
		}
		if s.want == "miss" && ran < 1+len(standardEngines) {
			t.Errorf("%s: %d openssl starts, want version and every engine", s.name, ran)
		}
		if f.OpenSSLVersion != s.version {
			t.Errorf("%s: OpenSSL %q, want %q", s.name, f.OpenSSLVersion, s.version)
		}
		if got := f.Engines["afalg"]; !strings.Contains(got, "unavailable") {
			t.Errorf("%s: afalg %q, want the fake's [ unavailable ]", s.name, got)
		}
		if f.OpenSSLSHA256 == "" {
			t.Errorf("%s: no sha256 of openssl", s.name)
		}
	}
}

// TestProbeCacheRealOpenSSL: the system's openssl, copied where the test can change it, is probed once, then
// answered from the cache, and probed again once its file changes.
func TestProbeCacheRealOpenSSL(t *testing.T) {
	sys, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl")
	}
	b, err := os.ReadFile(sys)
	if err != nil {
		t.Fatal(err)
	}
	openssl := filepath.Join(t.TempDir(), "openssl")
	if err := os.WriteFile(openssl, b, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := ProbeOptions{OpenSSL: openssl, CacheDir: t.TempDir()}
	if readBootID("") == "" {
		t.Skip("no /proc/sys/kernel/random/boot_id")
	}
	first := Probe(context.Background(), opts)
	second := Probe(context.Background(), opts)
	if first.ProbeCache != "miss" || second.ProbeCache != "hit" {
		t.Fatalf("probe cache %q then %q, want miss then hit (errors %q)", first.ProbeCache, second.ProbeCache, second.Errors)
	}
	if first.OpenSSLBuild != second.OpenSSLBuild || first.OpenSSLSHA256 != second.OpenSSLSHA256 || len(first.Engines) != len(second.Engines) {
		t.Errorf("the cached facts differ from the probed ones:\n%+v\n%+v", first, second)
	}
	for e, st := range first.Engines {
		if second.Engines[e] != st {
			t.Errorf("engine %s: %q cached, %q probed", e, second.Engines[e], st)
		}
	}
	if err := os.Chtimes(openssl, time.Time{}, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if third := Probe(context.Background(), opts); third.ProbeCache != "miss" {
		t.Errorf("after the binary changed: probe cache %q, want miss", third.ProbeCache)
	}
}
