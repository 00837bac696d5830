package inventory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeHome is the home directory the tests expand "~" to.
const fakeHome = "/home/lab"

func parseTest(t *testing.T, name, doc string) (*Inventory, error) {
	t.Helper()
	return parse(name, []byte(doc), func() (string, error) { return fakeHome, nil })
}

func mustParse(t *testing.T, doc string) *Inventory {
	t.Helper()
	inv, err := parseTest(t, "boards.toml", doc)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return inv
}

func TestParseSeedBoards(t *testing.T) {
	data, err := os.ReadFile("testdata/seed-boards.toml")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := parse("testdata/seed-boards.toml", data, func() (string, error) { return fakeHome, nil })
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	const f = "testdata/seed-boards.toml"
	defEnv := map[string]string{"OPENSSL_ENGINES": "/usr/lib/engines"}
	key, kh := fakeHome+"/.ssh/id_ed25519", fakeHome+"/.ssh/known_hosts"
	want := []Board{
		{Name: "am18x", Host: "192.0.2.18", User: "root", IdentityFile: key, KnownHosts: kh, Arch: "armv5", SoC: "AM18x",
			Tags: []string{"ti", "armv5"}, Modes: []string{"soft", "cpu"}, Env: defEnv, Source: f + ":13"},
		{Name: "am335x", Host: "192.0.2.35", User: "root", IdentityFile: key, KnownHosts: kh, Arch: "armv7", SoC: "AM335x",
			Tags: []string{"ti", "nightly"}, Modes: []string{"soft", "cpu", "devcrypto"}, Env: defEnv, Source: f + ":20"},
		{Name: "am37x", Host: "192.0.2.37", User: "debian", IdentityFile: key, KnownHosts: kh, Arch: "armv7", SoC: "AM37x",
			Tags: []string{"ti"}, Env: defEnv, Source: f + ":27"},
		{Name: "am64x", Host: "192.0.2.64", Port: 2222, User: "root", IdentityFile: key, KnownHosts: kh, ProxyJump: "lab-gw",
			Arch: "arm64", SoC: "AM64x", Tags: []string{"ti", "nightly"}, Modes: []string{"soft", "cpu", "devcrypto", "afalg", "kcapi"},
			Env:     map[string]string{"OPENSSL_ENGINES": "/usr/lib/engines", "OPENSSL_CONF": "/etc/ssl/openssl-dev.cnf"},
			OpenSSL: "/usr/bin/openssl", Source: f + ":34"},
		{Name: "imx6q", Host: "192.0.2.6", User: "root", IdentityFile: key, KnownHosts: kh, Arch: "armv7", SoC: "i.MX6Q",
			Tags: []string{"nxp", "nightly"}, Modes: []string{"soft", "cpu", "afalg", "kcapi"},
			Env: map[string]string{"OPENSSL_ENGINES": "/opt/engines"}, Source: f + ":45"},
		// The SSH settings of [defaults] do not reach the local board; env, modes and tags do.
		{Name: "local", Local: true, Tags: []string{"local"}, Modes: []string{"soft", "cpu"}, Env: defEnv, Source: f + ":9"},
	}
	if got := inv.Boards(); !reflect.DeepEqual(got, want) {
		t.Errorf("Boards() =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := inv.Path(), f; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
}

func TestDefaultsMerge(t *testing.T) {
	const defaults = `
[defaults]
user = "root"
port = 2200
identity_file = "~/.ssh/lab"
known_hosts = "/etc/fleet/known_hosts"
proxy_jump = "gw"
tags = ["lab"]
modes = ["soft"]
env = { A = "1", B = "2" }
openssl = "/usr/bin/openssl"
`
	tests := []struct {
		name  string
		board string
		want  Board
	}{
		{"inherits everything", `host = "h"`, Board{Name: "b", Host: "h", Port: 2200, User: "root",
			IdentityFile: fakeHome + "/.ssh/lab", KnownHosts: "/etc/fleet/known_hosts", ProxyJump: "gw",
			Tags: []string{"lab"}, Modes: []string{"soft"}, Env: map[string]string{"A": "1", "B": "2"},
			OpenSSL: "/usr/bin/openssl", Source: "boards.toml:13"}},
		{"board wins", `host = "h"
port = 22
user = "debian"
identity_file = "/keys/b"
known_hosts = "~/kh"
proxy_jump = ""
tags = ["x", "y"]
modes = ["cpu", "engine:pka"]
env = { B = "3", C = "4" }
openssl = "/opt/bin/openssl"`, Board{Name: "b", Host: "h", Port: 22, User: "debian",
			IdentityFile: "/keys/b", KnownHosts: fakeHome + "/kh", ProxyJump: "",
			Tags: []string{"x", "y"}, Modes: []string{"cpu", "engine:pka"}, Env: map[string]string{"A": "1", "B": "3", "C": "4"},
			OpenSSL: "/opt/bin/openssl", Source: "boards.toml:13"}},
		{"empty lists clear the defaults", `host = "h"
tags = []
modes = []`, Board{Name: "b", Host: "h", Port: 2200, User: "root",
			IdentityFile: fakeHome + "/.ssh/lab", KnownHosts: "/etc/fleet/known_hosts", ProxyJump: "gw",
			Tags: []string{}, Modes: []string{}, Env: map[string]string{"A": "1", "B": "2"},
			OpenSSL: "/usr/bin/openssl", Source: "boards.toml:13"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := mustParse(t, defaults+"\n[boards.b]\n"+tt.board+"\n")
			got, err := inv.Select([]string{"b"}, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, []Board{tt.want}) {
				t.Errorf("board =\n%+v\nwant\n%+v", got[0], tt.want)
			}
		})
	}
}

func TestLocalBoardIsBuiltIn(t *testing.T) {
	inv := mustParse(t, "[boards.b]\nhost = \"h\"\n")
	want := []Board{{Name: "b", Host: "h", Source: "boards.toml:1"}, localBoard()}
	if got := inv.Boards(); !reflect.DeepEqual(got, want) {
		t.Errorf("Boards() = %+v, want %+v", got, want)
	}
}

func TestLoadShippedBoardsToml(t *testing.T) {
	inv, err := Load("../boards.toml")
	if err != nil {
		t.Fatalf("the shipped boards.toml does not load: %v", err)
	}
	boards, err := inv.Select([]string{LocalBoard}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(strings.Split(string(mustRead(t, "../boards.toml")), "[boards.local]")[0], "\n")
	if got, want := boards[0], (Board{Name: "local", Local: true, Tags: []string{"local"},
		Source: fmt.Sprintf("../boards.toml:%d", line)}); !reflect.DeepEqual(got, want) {
		t.Errorf("local = %+v, want %+v", got, want)
	}
	all, err := inv.Select(nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(all), 1; got != want {
		t.Errorf("--all selects %d boards, want %d (the seed boards are commented out)", got, want)
	}
	if _, err := inv.Profile("nightly-short"); err != nil {
		t.Error(err)
	}
	// the shipped file must not replace a built-in profile: --profile nightly is the README's everywhere
	if p, err := inv.Profile(NightlyProfile); err != nil || len(p.Algorithms) != 11 {
		t.Errorf("--profile nightly with the shipped boards.toml: %d algorithms, %v; want the built-in's 11", len(p.Algorithms), err)
	}
	// Uncommenting the seed boards must give a valid file too.
	var lines []string
	for _, l := range strings.Split(string(mustRead(t, "../boards.toml")), "\n") {
		if strings.HasPrefix(l, "# [boards.") || strings.HasPrefix(l, "# ") && strings.Contains(l, " = ") && !strings.HasPrefix(l, "#  ") {
			l = strings.TrimPrefix(l, "# ")
		}
		lines = append(lines, l)
	}
	inv, err = parseTest(t, "boards.toml", strings.Join(lines, "\n"))
	if err != nil {
		t.Fatalf("boards.toml with the examples uncommented: %v", err)
	}
	all, err = inv.Select(nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(all), 6; got != want {
		t.Errorf("uncommented: --all selects %d boards, want %d", got, want)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestLoadOrDefault(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "boards.toml")

	inv, err := LoadOrDefault(missing, false)
	if err != nil {
		t.Fatalf("missing default file: %v", err)
	}
	if got, want := inv.Boards(), []Board{localBoard()}; !reflect.DeepEqual(got, want) {
		t.Errorf("Boards() = %+v, want %+v", got, want)
	}
	if got, want := inv.Path(), ""; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}

	_, err = LoadOrDefault(missing, true)
	if got, want := errString(err), "load inventory: open "+missing+": no such file or directory"; got != want {
		t.Errorf("explicit missing file: error %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("explicit missing file: %v is not fs.ErrNotExist", err)
	}

	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[boards.x]\nhots = \"h\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A default file that exists but is wrong is an error: only absence falls back.
	_, err = LoadOrDefault(bad, false)
	wantErr := bad + `:1:1: board "x": missing host (expected host = "NAME-OR-ADDRESS", or an alias from ~/.ssh/config)` + "\n" +
		bad + `:2:1: board "x": unknown key "hots", did you mean "host"? (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)`
	if got := errString(err); got != wantErr {
		t.Errorf("bad default file: error\n%s\nwant\n%s", got, wantErr)
	}

	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, make([]byte, maxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(big)
	if got, want := errString(err), "load inventory: "+big+": larger than 4 MiB"; got != want {
		t.Errorf("big file: error %q, want %q", got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestIA32CapPartialMaskIsEnvironment: a partial OPENSSL_ia32cap (SHA-NI off, AES-NI off but PCLMULQDQ on) is
// accepted as the board's environment, which its mode cpu runs with and each run records.
func TestIA32CapPartialMaskIsEnvironment(t *testing.T) {
	for _, mask := range []string{":~0x20000000", "~0x200000000000000", "~0x200000200000000:~0x0"} {
		inv, err := Parse("boards.toml", []byte("[boards.x86]\nhost = \"10.0.0.9\"\nenv = { OPENSSL_ia32cap = \""+mask+"\" }\n"))
		if err != nil {
			t.Fatalf("%s: %v", mask, err)
		}
		sel, err := inv.Select([]string{"x86"}, nil, false)
		if err != nil || len(sel) != 1 {
			t.Fatalf("%s: select x86: %v %v", mask, sel, err)
		}
		if got := sel[0].Env["OPENSSL_ia32cap"]; got != mask {
			t.Errorf("%s: env OPENSSL_ia32cap = %q", mask, got)
		}
	}
}

// TestReplacesBuiltinProfile: a file's [profiles.nightly] replaces the built-in nightly, and the inventory says
// so (fleet run prints it), while a profile of a new name, the shipped nightly-short, replaces nothing.
func TestReplacesBuiltinProfile(t *testing.T) {
	inv := mustParse(t, "[profiles.nightly]\nalgorithms = [\"sha256\"]\n[profiles.mine]\nalgorithms = [\"sha1\"]\n")
	if !inv.ReplacesBuiltin("nightly") {
		t.Error("[profiles.nightly] is not reported as replacing the built-in nightly")
	}
	for _, name := range []string{"mine", "quick", "full"} {
		if inv.ReplacesBuiltin(name) {
			t.Errorf("%s reported as replacing a built-in profile", name)
		}
	}
	shipped, err := Parse("boards.toml", mustRead(t, filepath.Join("..", "boards.toml")))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range shipped.Profiles() {
		if shipped.ReplacesBuiltin(p.Name) {
			t.Errorf("the shipped boards.toml replaces the built-in profile %s", p.Name)
		}
	}
	if Default().ReplacesBuiltin("nightly") {
		t.Error("the default inventory replaces nightly")
	}
}
