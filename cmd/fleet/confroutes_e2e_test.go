package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfRoutesLocalEndToEnd: the local board run with an OPENSSL_CONF (the board's env) that makes the afalg
// engine the default for every cipher, with the machine's real openssl. The probe records the route, `show`
// says where runs without -engine go, and the cpu points of the cipher (not of the digest) carry the flag naming
// the file; `fleet results --format json` has it.
func TestConfRoutesLocalEndToEnd(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent and runs openssl")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "openssl.cnf")
	if err := os.WriteFile(conf, []byte("openssl_conf = openssl_init\n[openssl_init]\nengines = engine_section\n"+
		"[engine_section]\nafalg = afalg_section\n[afalg_section]\ndefault_algorithms = CIPHERS\ninit = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inv := nightlyInventory(t, dir, "boards.toml", false, map[string]string{"OPENSSL_CONF": conf})
	db := filepath.Join(dir, "fleet.db")
	stdout, stderr, code := runFleet(t, "--inventory", inv, "run", "--boards", "local", "--db", db,
		"--modes", "cpu", "--algorithms", "aes-128-cbc,sha256", "--sizes", "16", "--seconds", "1")
	if code != 0 && code != 1 {
		t.Fatalf("fleet run exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	show, stderr, code := runFleet(t, "show", "--db", db, "latest")
	if code != 0 || !strings.Contains(show, "runs without -engine go to") || !strings.Contains(show, "engine afalg [afalg_section]: default_algorithms = CIPHERS") {
		t.Errorf("show: exit %d, want the route named:\n%s\n%s", code, show, stderr)
	}
	res, stderr, code := runFleet(t, "results", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("results: exit %d: %s", code, stderr)
	}
	var rows []struct {
		Mode, Algorithm string
		Flags           []string
	}
	if err := json.Unmarshal([]byte(res), &rows); err != nil {
		t.Fatalf("results JSON: %v\n%s", err, res)
	}
	var aes, sha int
	for _, r := range rows {
		if r.Mode != "cpu" {
			continue
		}
		flags := strings.Join(r.Flags, "; ")
		switch r.Algorithm {
		case "aes-128-cbc":
			aes++
			if !strings.Contains(flags, "may run aes-128-cbc there, not on the CPU") || !strings.Contains(flags, conf) {
				t.Errorf("aes-128-cbc cpu point without the route's flag: %q", r.Flags)
			}
		case "sha256":
			sha++
			if strings.Contains(flags, "not on the CPU") {
				t.Errorf("sha256 cpu point flagged, though CIPHERS does not route digests: %q", r.Flags)
			}
		}
	}
	if aes == 0 || sha == 0 {
		t.Errorf("results: %d aes-128-cbc and %d sha256 cpu points, want both:\n%s", aes, sha, res)
	}
}
