package inventory

import (
	"strings"
	"testing"

	"github.com/fleetlab/fleet/opensslspeed"
)

func TestNormalizeArch(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"armv5", "armv5", true}, {"armv5tejl", "armv5", true}, {"armel", "armv5", true},
		{"armv6l", "armv6", true},
		{"armv7", "armv7", true}, {"armv7l", "armv7", true}, {"armhf", "armv7", true}, {"armv8l", "armv7", true},
		{"armv7hl", "armv7", true},
		{"arm64", "arm64", true}, {"aarch64", "arm64", true}, {"AArch64", "arm64", true},
		{"amd64", "amd64", true}, {"x86_64", "amd64", true}, {"x86-64", "amd64", true},
		{"386", "386", true}, {"i686", "386", true},
		{"riscv64", "riscv64", true}, {"mips", "mips", true}, {"mipsel", "mipsle", true},
		{"mipsle-softfloat", "mipsle-softfloat", true}, {"mips64", "mips64", true}, {"mips64el", "mips64le", true},
		{"ppc64le", "ppc64le", true}, {"ppc64el", "ppc64le", true}, {"loongarch64", "loong64", true},
		{"armv5teb", "", false}, {"ppc", "", false}, {"sh4", "", false}, {"ppc64", "", false},
		{"arm", "", false}, {"", "", false}, {"aarch64;id", "", false},
	}
	for _, tt := range tests {
		got, ok := NormalizeArch(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NormalizeArch(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCheckMode(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"soft", "<nil>"}, {"cpu", "<nil>"}, {"devcrypto", "<nil>"}, {"afalg", "<nil>"}, {"kcapi", "<nil>"},
		{"engine:pka", "<nil>"}, {"provider:tpm2.v1-x_y", "<nil>"},
		{"kcapi:all", "<nil>"}, {"kcapi:virtio_crypto_aes_cbc", "<nil>"}, {"kcapi:cbc-aes-ce", "<nil>"},
		{"kcapi:cbc(aes-generic)", "<nil>"}, {"kcapi:authenc(hmac(sha256-ce),cbc(aes-ce))", "<nil>"},
		{"kcapi:", `mode "kcapi:": empty driver name (expected kcapi:DRIVER, a /proc/crypto driver name, or kcapi:all)`},
		{"kcapi:cbc aes", `mode "kcapi:cbc aes": driver name "cbc aes": character ' ' (expected letters, digits, '_', '-', '.', ',', '(' or ')')`},
		{"kcapi:$(id)", `mode "kcapi:$(id)": driver name "$(id)": character '$' (expected letters, digits, '_', '-', '.', ',', '(' or ')')`},
		{"kcapi:cbc(aes", `mode "kcapi:cbc(aes": driver name "cbc(aes": unbalanced parentheses`},
		{"kcapi:" + strings.Repeat("a", 64), `mode "kcapi:` + strings.Repeat("a", 64) + `": driver name "` + strings.Repeat("a", 64) + `" is 64 bytes, AF_ALG binds at most 63`},
		{"CPU", `mode "CPU": unknown mode "CPU" (expected soft, cpu, devcrypto, afalg, kcapi, ssh, kcapi:DRIVER, kcapi:all, engine:NAME or provider:NAME)`},
		{"engine", `mode "engine": unknown mode "engine" (expected soft, cpu, devcrypto, afalg, kcapi, ssh, kcapi:DRIVER, kcapi:all, engine:NAME or provider:NAME)`},
		{"engine:", `mode "engine:": invalid engine name "" (expected letters, digits, '_', '.' or '-')`},
		{"engine:a b", `mode "engine:a b": invalid engine name "a b" (expected letters, digits, '_', '.' or '-')`},
		{"provider:$(id)", `mode "provider:$(id)": invalid provider name "$(id)" (expected letters, digits, '_', '.' or '-')`},
	}
	for _, tt := range tests {
		if got := errString(CheckMode(tt.mode)); got != tt.want {
			t.Errorf("CheckMode(%q) = %s, want %s", tt.mode, got, tt.want)
		}
	}
}

func TestCheckHostAndJump(t *testing.T) {
	hosts := []struct {
		host string
		ok   bool
	}{
		{"192.0.2.64", true}, {"am64x.lab.example", true}, {"lab_gw", true}, {"2001:db8::1", true}, {"fe80::1%eth0", true},
		{"", false}, {"-p", false}, {"a b", false}, {"a;b", false}, {"a|b", false}, {"a&b", false}, {"$(x)", false},
		{"`x`", false}, {"a\nb", false}, {"a'b", false}, {`a"b`, false}, {"a>b", false}, {"a*b", false}, {"[::1]", false},
	}
	for _, tt := range hosts {
		if got := checkHost(tt.host) == ""; got != tt.ok {
			t.Errorf("checkHost(%q) accepts = %v, want %v", tt.host, got, tt.ok)
		}
	}
	jumps := []struct {
		jump string
		ok   bool
	}{
		{"", true}, {"none", true}, {"gw", true}, {"gw1,gw2", true}, {"admin@gw2:2222", true}, {"ssh://admin@gw:22", true},
		{"[2001:db8::1]:22", true}, {"gw1, gw2", false}, {"gw;id", false}, {"-oProxyCommand=id", false}, {"gw,", false},
		{"a@b@c", false}, {"gw:port", false},
	}
	for _, tt := range jumps {
		if got := checkProxyJump(tt.jump) == ""; got != tt.ok {
			t.Errorf("checkProxyJump(%q) accepts = %v, want %v", tt.jump, got, tt.ok)
		}
	}
}

func TestHomeExpansion(t *testing.T) {
	doc := "[boards.b]\nhost = \"h\"\nidentity_file = \"~\"\nknown_hosts = \"~/kh\"\n"
	inv := mustParse(t, doc)
	b, _ := inv.Select([]string{"b"}, nil, false)
	if got, want := b[0].IdentityFile, fakeHome; got != want {
		t.Errorf("identity_file = %q, want %q", got, want)
	}
	if got, want := b[0].KnownHosts, fakeHome+"/kh"; got != want {
		t.Errorf("known_hosts = %q, want %q", got, want)
	}
	_, err := parse("boards.toml", []byte(doc), func() (string, error) { return "", nil })
	want := `boards.toml:3:17: board "b": identity_file "~": expand ~: home directory is not set` + "\n" +
		`boards.toml:4:15: board "b": known_hosts "~/kh": expand ~: home directory is not set`
	if got := errString(err); got != want {
		t.Errorf("no home: error\n%s\nwant\n%s", got, want)
	}
}

// TestEditDistance: the distance inventory's suggestions use is opensslspeed's, in runes, a swap one edit.
func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"host", "hots", 1}, {"am64", "am64x", 1}, {"imx6g", "imx6q", 1},
		{"kitten", "sitting", 3}, {"ünï", "uni", 2},
	}
	for _, tt := range tests {
		if got := opensslspeed.EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
