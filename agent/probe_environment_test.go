package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// copyFixture puts a file of testdata/proc at name under root.
func copyFixture(t *testing.T, root, fixture, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "proc", fixture))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

const confWithEngine = `# system-wide defaults
openssl_conf = openssl_init

[openssl_init]
engines = engine_section
ssl_conf = ssl_sect

[engine_section]
devcrypto = devcrypto_section   # the board's accelerator

[devcrypto_section]
CIPHERS = ALL
default_algorithms = ALL

[ssl_sect]
system_default = tls
`

func TestProbeEnvironment(t *testing.T) {
	root := fakeBoardRoot(t, false)
	copyFixture(t, root, "modules-am64x.txt", "proc/modules")
	copyFixture(t, root, "cmdline-am64x.txt", "proc/cmdline")
	conf := filepath.Join(t.TempDir(), "openssl.cnf")
	if err := os.WriteFile(conf, []byte(confWithEngine), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENSSL_ia32cap", "~0x200000000000000")
	fake := writeFakeOpenSSL(t)
	f := Probe(context.Background(), ProbeOptions{OpenSSL: fake, Root: root, Env: []string{"OPENSSL_CONF=" + conf}})

	if got, want := f.OpenSSLEnv["OPENSSL_ia32cap"], "~0x200000000000000"; got != want {
		t.Errorf("OPENSSL_ia32cap = %q, want %q (env %v)", got, want, f.OpenSSLEnv)
	}
	if got := f.OpenSSLEnv["OPENSSL_CONF"]; got != conf {
		t.Errorf("OPENSSL_CONF = %q, want the plan's %q", got, conf)
	}
	if _, ok := f.OpenSSLEnv["PATH"]; ok {
		t.Errorf("env %v records PATH, which is not OpenSSL's", f.OpenSSLEnv)
	}
	if want := "console=ttyS2,115200n8 earlycon=ns16550a,mmio32,0x02800000 root=PARTUUID=076c4a2a-02 rw rootfstype=ext4 rootwait"; f.KernelCmdline != want {
		t.Errorf("cmdline %q, want %q", f.KernelCmdline, want)
	}
	all := []string{"aes_ce_blk", "aes_ce_cipher", "af_alg", "algif_skcipher", "authenc", "can_dev", "cryptodev", "fuse",
		"ghash_ce", "libcomposite", "m_can", "m_can_platform", "rti_wdt", "sa2ul", "sha256_arm64", "sha2_ce", "u_ether", "usb_f_ncm"}
	if got := slices.Sorted(slices.Values(f.Modules)); !slices.Equal(got, all) || len(f.Modules) != len(all) {
		t.Errorf("modules %q, want %q", f.Modules, all)
	}
	want := []string{"aes_ce_blk", "aes_ce_cipher", "af_alg", "algif_skcipher", "authenc", "cryptodev", "ghash_ce",
		"sa2ul", "sha256_arm64", "sha2_ce"}
	if got := protocol.CryptoModules(f.Modules, f.ProcCrypto); !slices.Equal(got, want) {
		t.Errorf("crypto modules %q, want %q", got, want)
	}
	sum, err := fileSHA256(fake)
	if err != nil || len(sum) != 64 || f.OpenSSLSHA256 != sum {
		t.Errorf("openssl sha256 %q, want %q (%v)", f.OpenSSLSHA256, sum, err)
	}
	if f.OpenSSLConf != conf || len(f.OpenSSLConfDigest) != 16 {
		t.Errorf("conf %q digest %q, want %q and 16 hex digits", f.OpenSSLConf, f.OpenSSLConfDigest, conf)
	}
	for _, e := range f.Errors {
		if strings.Contains(e, "cmdline") || strings.Contains(e, "modules") || strings.Contains(e, "sha256") || strings.Contains(e, "config") {
			t.Errorf("probe error %q", e)
		}
	}
}

// TestProbeEnvironmentAbsent: a kernel without modules has no /proc/modules, which is no error; a missing
// /proc/cmdline or configuration is one.
func TestProbeEnvironmentAbsent(t *testing.T) {
	root := fakeBoardRoot(t, false)
	missing := filepath.Join(t.TempDir(), "nope.cnf")
	f := Probe(context.Background(), ProbeOptions{OpenSSL: writeFakeOpenSSL(t), Root: root, Env: []string{"OPENSSL_CONF=" + missing}})
	if f.Modules != nil || f.KernelCmdline != "" || f.OpenSSLConfDigest != "" || f.OpenSSLConf != missing {
		t.Errorf("modules %q, cmdline %q, conf %q digest %q", f.Modules, f.KernelCmdline, f.OpenSSLConf, f.OpenSSLConfDigest)
	}
	var errs []string
	for _, e := range f.Errors {
		if strings.Contains(e, "modules") {
			t.Errorf("probe error %q for a kernel without modules", e)
		}
		if strings.Contains(e, "/proc/cmdline") || strings.Contains(e, "read openssl config") {
			errs = append(errs, e)
		}
	}
	if len(errs) != 2 {
		t.Errorf("errors %q: want one for /proc/cmdline and one for the configuration", f.Errors)
	}
}

func TestConfDigest(t *testing.T) {
	base := confDigest(parseOpenSSLConf(confWithEngine))
	if len(base) != 16 {
		t.Fatalf("digest %q", base)
	}
	for _, tc := range []struct {
		name, text string
		same       bool
	}{
		{"comments and spacing", strings.ReplaceAll(strings.ReplaceAll(confWithEngine, " = ", "="), "# the board's accelerator", ""), true},
		{"unrelated section", confWithEngine + "\n[ssl_sect]\nMinProtocol = TLSv1.3\n", true},
		{"engine setting", strings.Replace(confWithEngine, "CIPHERS = ALL", "CIPHERS = AES-128-CBC", 1), false},
		{"engine removed", strings.Replace(confWithEngine, "engines = engine_section", "", 1), false},
		{"continued line", strings.Replace(confWithEngine, "default_algorithms = ALL", "default_algorithms = \\\nALL", 1), true},
	} {
		got := confDigest(parseOpenSSLConf(tc.text))
		if (got == base) != tc.same {
			t.Errorf("%s: digest %q, base %q, want same %v", tc.name, got, base, tc.same)
		}
	}
	if got := confDigest(parseOpenSSLConf("[ssl_sect]\nsystem_default = tls\n")); got != "none" {
		t.Errorf("a configuration without openssl_conf: %q, want none", got)
	}
	prov := "openssl_conf = init\n[init]\nproviders = provs\n[provs]\ndefault = dflt\nlegacy = leg\n[dflt]\nactivate = 1\n[leg]\nactivate = 1\n"
	if a, b := confDigest(parseOpenSSLConf(prov)), confDigest(parseOpenSSLConf(strings.Replace(prov, "legacy = leg\n", "", 1))); a == b || a == "none" {
		t.Errorf("providers: %q and without legacy %q, want two digests", a, b)
	}
}

func TestParseProcModulesRefuses(t *testing.T) {
	names, err := parseProcModules("af_alg 32768 1 algif_skcipher, Live 0x0\ngarbage\n")
	if err == nil || !strings.Contains(err.Error(), "line 2") || !slices.Equal(names, []string{"af_alg"}) {
		t.Errorf("names %q, error %v: want af_alg and an error naming line 2", names, err)
	}
}

func TestOpenSSLDir(t *testing.T) {
	build := "OpenSSL 3.0.19 27 Jan 2026\nbuilt on: Mon\nOPENSSLDIR: \"/usr/lib/ssl\"\nENGINESDIR: \"/x\"\n"
	if got := opensslDir(build); got != "/usr/lib/ssl" {
		t.Errorf("OPENSSLDIR %q", got)
	}
}

func FuzzParseProcModules(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "proc", "modules-am64x.txt"))
	if err != nil {
		f.Fatalf("seed corpus: %v", err)
	}
	f.Add(string(b))
	f.Add("x 1 0 - Live\n\n\ty 2 1 x, Loading 0x0 (OE)\n")
	f.Fuzz(func(t *testing.T, in string) {
		names, _ := parseProcModules(in)
		if len(names) > strings.Count(in, "\n")+1 {
			t.Errorf("%d names from %d lines", len(names), strings.Count(in, "\n")+1)
		}
		for _, n := range names {
			if !validModuleName(n) {
				t.Errorf("name %q", n)
			}
		}
		mods := protocol.CryptoModules(names, nil)
		if len(mods) > len(names) || !slices.IsSorted(mods) {
			t.Errorf("crypto modules %q of %q", mods, names)
		}
	})
}

func FuzzParseOpenSSLConf(f *testing.F) {
	f.Add(confWithEngine)
	f.Add("openssl_conf = i\n[i]\nengines = e\nproviders = p\nalg_section = a\n[e]\nafalg = s\n[s]\ndefault_algorithms = CIPHERS\n[p]\nx = k\n[k]\nactivate = 1\n[a]\ndefault_properties = ?provider=x\n")
	f.Add("openssl_conf = a\n[a]\nengines = a\n[ a ]\n'k' = \"v # not a comment\"\n.include /etc/x\n\\")
	f.Fuzz(func(t *testing.T, in string) {
		c := parseOpenSSLConf(in)
		if len(c) > maxConfSections+1 {
			t.Errorf("%d sections", len(c))
		}
		if d := confDigest(c); d != "none" && len(d) != 16 {
			t.Errorf("digest %q", d)
		}
		routes := confRoutes(c)
		if len(routes) > maxConfRoutes {
			t.Errorf("%d routes", len(routes))
		}
		for _, alg := range []string{"aes-128-cbc", "sha256", "rsa2048", "ecdsap256"} {
			if f := routedFlag("c", routes, alg); f != "" && len(routes) == 0 {
				t.Errorf("%s: flag %q without a route", alg, f)
			}
		}
	})
}
