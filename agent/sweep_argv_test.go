package agent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func mustVersion(t *testing.T, line string) opensslVersion {
	t.Helper()
	v, _, ok := parseOpenSSLVersion(line)
	if !ok {
		t.Fatalf("parseOpenSSLVersion(%q): not ok", line)
	}
	return v
}

func TestParseOpenSSLVersion(t *testing.T) {
	for _, tc := range []struct {
		line, printed string
		want          opensslVersion
	}{
		{"OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)", "3.0.19", opensslVersion{Major: 3, Patch: 19}},
		{"OpenSSL 1.0.1e-fips 11 Feb 2013", "1.0.1e", opensslVersion{Major: 1, Minor: 0, Patch: 1, Letter: "e"}},
		{"OpenSSL 1.1.1w  11 Sep 2023", "1.1.1w", opensslVersion{Major: 1, Minor: 1, Patch: 1, Letter: "w"}},
		{"LibreSSL 3.8.2", "3.8.2", opensslVersion{Major: 3, Minor: 8, Patch: 2, LibreSSL: true}},
	} {
		got, printed, ok := parseOpenSSLVersion(tc.line)
		if !ok || got != tc.want || printed != tc.printed {
			t.Errorf("parseOpenSSLVersion(%q) = %+v, %q, %v; want %+v, %q", tc.line, got, printed, ok, tc.want, tc.printed)
		}
	}
	if _, _, ok := parseOpenSSLVersion("openssl: not found"); ok {
		t.Errorf("parseOpenSSLVersion of an error: ok")
	}
}

func TestSoftModeEnv(t *testing.T) {
	for _, tc := range []struct {
		machine, want string
		ok            bool
	}{
		{"x86_64", "OPENSSL_ia32cap=~0x200000200000000:~0x60020000000", true},
		{"i686", "OPENSSL_ia32cap=~0x200000200000000:~0x60020000000", true},
		{"aarch64", "OPENSSL_armcap=0", true},
		{"armv7l", "OPENSSL_armcap=0", true},
		{"armv5tejl", "OPENSSL_armcap=0", true},
		{"riscv64", "", false},
	} {
		got, ok := softModeEnv(tc.machine)
		if got != tc.want || ok != tc.ok {
			t.Errorf("softModeEnv(%q) = %q, %v; want %q, %v", tc.machine, got, ok, tc.want, tc.ok)
		}
	}
}

// TestIA32CapMaskBits checks the mask against the CPUID bits OpenSSL reads: the first word is CPUID.1 EDX (low)
// and ECX (high), the second CPUID.7 EBX (low) and ECX (high).
func TestIA32CapMaskBits(t *testing.T) {
	const aesni, pclmul = 32 + 25, 32 + 1          // CPUID.1:ECX
	const sha, vaes, vpclmul = 29, 32 + 9, 32 + 10 // CPUID.7:EBX, ECX
	var w0, w1 uint64 = 1<<aesni | 1<<pclmul, 1<<sha | 1<<vaes | 1<<vpclmul
	val := strings.TrimPrefix(ia32capSoftMask, "OPENSSL_ia32cap=")
	a, b, _ := strings.Cut(val, ":")
	if got, want := a, "~0x"+strings.ToLower(strconvHex(w0)); got != want {
		t.Errorf("first word %s, want %s", got, want)
	}
	if got, want := b, "~0x"+strings.ToLower(strconvHex(w1)); got != want {
		t.Errorf("second word %s, want %s", got, want)
	}
}

func strconvHex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{digits[v&15]}, b...)
	}
	return string(b)
}

func TestBuildSpeedCommands(t *testing.T) {
	plan := protocol.Plan{Seconds: 1, Sizes: []int{16, 8192}, Env: map[string]string{"OPENSSL_CONF": "/etc/x.cnf"}}
	v30 := mustVersion(t, "OpenSSL 3.0.19 27 Jan 2026")
	v111 := mustVersion(t, "OpenSSL 1.1.1w  11 Sep 2023")
	v102 := mustVersion(t, "OpenSSL 1.0.2k-fips  26 Jan 2017")
	type cmd struct {
		argv  string
		env   []string
		flags int
	}
	for _, tc := range []struct {
		name    string
		v       opensslVersion
		machine string
		plan    protocol.Plan
		mode    string
		alg     string
		decrypt bool
		want    []cmd
		engine  string
		seconds float64
	}{
		{"3.0 cpu per size", v30, "x86_64", plan, "cpu", "aes-128-cbc", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 -bytes 16 -evp aes-128-cbc", []string{"OPENSSL_CONF=/etc/x.cnf"}, 0},
			{"openssl speed -elapsed -mr -seconds 1 -bytes 8192 -evp aes-128-cbc", []string{"OPENSSL_CONF=/etc/x.cnf"}, 0},
		}, "", 1},
		{"3.0 soft x86", v30, "x86_64", protocol.Plan{Seconds: 1, Sizes: []int{64}}, "soft", "aes-128-cbc", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 -bytes 64 -evp aes-128-cbc", []string{ia32capSoftMask}, 0},
		}, "", 1},
		{"3.0 soft arm decrypt", v30, "aarch64", protocol.Plan{Seconds: 1, Sizes: []int{64}}, "soft", "aes-128-cbc", true, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 -decrypt -bytes 64 -evp aes-128-cbc", []string{"OPENSSL_armcap=0"}, 0},
		}, "", 1},
		{"3.0 afalg multi", v30, "aarch64", protocol.Plan{Seconds: 2, Sizes: []int{16}, Threads: 2}, "afalg", "aes-128-cbc", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 2 -multi 2 -engine afalg -bytes 16 -evp aes-128-cbc", []string{}, 0},
		}, "afalg", 2},
		{"3.0 devcrypto", v30, "armv7l", protocol.Plan{Seconds: 1, Sizes: []int{16}}, "devcrypto", "sha256", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 -engine devcrypto -bytes 16 -evp sha256", []string{}, 0},
		}, "devcrypto", 1},
		{"3.0 provider", v30, "x86_64", protocol.Plan{Seconds: 1, Sizes: []int{16}}, "provider:legacy", "aes-128-cbc", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 -provider legacy -bytes 16 -evp aes-128-cbc", []string{}, 0},
		}, "", 1},
		{"3.0 rsa one run", v30, "x86_64", plan, "cpu", "rsa2048", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 rsa2048", []string{"OPENSSL_CONF=/etc/x.cnf"}, 0},
		}, "", 1},
		{"3.0 fractional seconds", v30, "x86_64", protocol.Plan{Seconds: 0.3, Sizes: []int{16}}, "cpu", "sha256", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 -bytes 16 -evp sha256", []string{}, 1},
		}, "", 1},
		{"1.1.1 engine", v111, "armv7l", protocol.Plan{Seconds: 1, Sizes: []int{1024}}, "engine:pka", "aes-128-cbc", false, []cmd{
			{"openssl speed -elapsed -mr -seconds 1 -engine pka -bytes 1024 -evp aes-128-cbc", []string{}, 0},
		}, "pka", 1},
		{"1.0.2 cryptodev default sizes", v102, "armv7l", plan, "devcrypto", "aes-128-cbc", false, []cmd{
			{"openssl speed -elapsed -mr -engine cryptodev -evp aes-128-cbc", []string{"OPENSSL_CONF=/etc/x.cnf"}, 2},
		}, "cryptodev", 3},
		{"1.0.2 rsa", v102, "armv7l", protocol.Plan{Seconds: 1}, "cpu", "rsa2048", false, []cmd{
			{"openssl speed -elapsed -mr rsa2048", []string{}, 1},
		}, "", 10},
		{"1.0.2 af_alg", v102, "armv7l", protocol.Plan{Seconds: 3}, "afalg", "aes-128-cbc", false, []cmd{
			{"openssl speed -elapsed -mr -engine af_alg -evp aes-128-cbc", []string{}, 1},
		}, "af_alg", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds, err := buildSpeedCommands("openssl", tc.v, tc.machine, tc.plan, tc.mode, tc.alg, tc.decrypt)
			if err != nil {
				t.Fatal(err)
			}
			if len(cmds) != len(tc.want) {
				t.Fatalf("%d commands, want %d: %+v", len(cmds), len(tc.want), cmds)
			}
			for i, c := range cmds {
				if got := strings.Join(c.Argv, " "); got != tc.want[i].argv {
					t.Errorf("argv[%d] = %s\nwant       %s", i, got, tc.want[i].argv)
				}
				if !reflect.DeepEqual(append([]string{}, c.Env...), tc.want[i].env) {
					t.Errorf("env[%d] = %q, want %q", i, c.Env, tc.want[i].env)
				}
				if len(c.Flags) != tc.want[i].flags {
					t.Errorf("flags[%d] = %q, want %d", i, c.Flags, tc.want[i].flags)
				}
				if want := tc.seconds; c.Seconds != want {
					t.Errorf("nominal seconds %v, want %v", c.Seconds, want)
				}
				if c.Engine != tc.engine || c.Decrypt != tc.decrypt {
					t.Errorf("engine, decrypt = %q, %v; want %q, %v", c.Engine, c.Decrypt, tc.engine, tc.decrypt)
				}
			}
		})
	}
}

func TestBuildSpeedCommandsErrors(t *testing.T) {
	v30 := mustVersion(t, "OpenSSL 3.0.19 27 Jan 2026")
	v111 := mustVersion(t, "OpenSSL 1.1.1w  11 Sep 2023")
	for _, tc := range []struct {
		name, machine, mode string
		v                   opensslVersion
	}{
		{"provider on 1.1.1", "x86_64", "provider:legacy", v111},
		{"soft on riscv", "riscv64", "soft", v30},
		{"kcapi is not openssl", "x86_64", "kcapi", v30},
		{"empty engine", "x86_64", "engine:", v30},
	} {
		if _, err := buildSpeedCommands("openssl", tc.v, tc.machine, protocol.Plan{Seconds: 1}, tc.mode, "aes-128-cbc", false); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestEngineFallback(t *testing.T) {
	for _, tc := range []struct {
		name, engine, stdout, stderr string
		failed                       bool
	}{
		{"no engine", "", "+F:...", "", false},
		{"3.x invalid", "afalg", "", "Invalid engine \"afalg\"\n4087EE:error:...\n", true},
		{"1.x invalid lower case", "cryptodev", "", "invalid engine \"cryptodev\"\n", true},
		{"3.x set", "afalg", "", "Engine \"afalg\" set.\nYou have chosen", false},
		{"1.x set", "cryptodev", "", "engine \"cryptodev\" set.\n", false},
		{"silent", "devcrypto", "+F:25:AES-128-CBC:1.0", "", true},
		{"other engine set", "devcrypto", "", "engine \"afalg\" set.\n", true},
	} {
		if got := engineFallback(tc.engine, tc.stdout, tc.stderr); (got != "") != tc.failed {
			t.Errorf("%s: engineFallback = %q, want failed=%v", tc.name, got, tc.failed)
		}
	}
}
