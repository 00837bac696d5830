package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestConfRoutes: what in an openssl.cnf hands runs without -engine to an engine or a foreign provider, and what
// does not (an engine loaded without default_algorithms, OpenSSL's own providers, an unrelated section).
func TestConfRoutes(t *testing.T) {
	for _, c := range []struct {
		name, conf string
		want       []string
	}{
		{"afalg default ALL", "openssl_conf = init\n[init]\nengines = e\n[e]\nafalg = afalg_sect\n[afalg_sect]\ndefault_algorithms = ALL\ninit = 1\n",
			[]string{"engine afalg [afalg_sect]: default_algorithms = ALL"}},
		{"engine_id renames", "openssl_conf=init\n[init]\nengines=e\n[e]\nhw = s\n[s]\nengine_id = cryptodev\ndynamic_path = /x.so\ndefault_algorithms = CIPHERS,DIGESTS\n",
			[]string{"engine cryptodev [s]: default_algorithms = CIPHERS,DIGESTS"}},
		{"devcrypto controls", confWithEngine,
			[]string{"engine devcrypto [devcrypto_section]: default_algorithms = ALL",
				"engine devcrypto [devcrypto_section]: CIPHERS = ALL registers its algorithms"}},
		{"devcrypto softdrivers", "openssl_conf = i\n[i]\nengines = e\n[e]\ndevcrypto = d\n[d]\nUSE_SOFTDRIVERS = 1\n",
			[]string{"engine devcrypto [d]: USE_SOFTDRIVERS = 1 registers its algorithms"}},
		{"engine loaded only", "openssl_conf = i\n[i]\nengines = e\n[e]\nafalg = a\n[a]\ninit = 1\n", nil},
		{"own providers", "openssl_conf = i\n[i]\nproviders = p\n[p]\ndefault = d\nlegacy = l\n[d]\nactivate = 1\n[l]\nactivate = 1\n", nil},
		{"foreign provider", "openssl_conf = i\n[i]\nproviders = p\n[p]\ndefault = d\npkcs11 = k\nafalg = a\n[d]\nactivate = 1\n[k]\nactivate = 1\n[a]\nactivate = 0\n",
			[]string{"provider pkcs11 [k]: activate = 1"}},
		{"default_properties", "openssl_conf = i\n[i]\nalg_section = algs\n[algs]\ndefault_properties = ?provider=afalg\n",
			[]string{"default_properties [algs] = ?provider=afalg"}},
		{"fips properties", "openssl_conf = i\n[i]\nalg_section = algs\n[algs]\ndefault_properties = fips=yes,provider=fips\n", nil},
		{"no openssl_conf", "[e]\nafalg = a\n[a]\ndefault_algorithms = ALL\n", nil},
		{"Debian's default", "openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\nssl_conf = ssl_sect\n[provider_sect]\ndefault = default_sect\n[default_sect]\n# activate = 1\n[ssl_sect]\nsystem_default = system_default_sect\n", nil},
	} {
		if got := confRoutes(parseOpenSSLConf(c.conf)); !slices.Equal(got, c.want) {
			t.Errorf("%s: routes %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRoutedFlag: a default_algorithms route concerns the classes it names; the others concern every algorithm.
func TestRoutedFlag(t *testing.T) {
	ciphers := []string{"engine e [s]: default_algorithms = CIPHERS"}
	for _, c := range []struct {
		routes []string
		alg    string
		want   bool
	}{
		{ciphers, "aes-128-cbc", true}, {ciphers, "sha256", false}, {ciphers, "rsa2048", false},
		{[]string{"engine e [s]: default_algorithms = DIGESTS"}, "sha256", true},
		{[]string{"engine e [s]: default_algorithms = RSA"}, "rsa2048", true},
		{[]string{"engine e [s]: default_algorithms = PKEY_CRYPTO"}, "ecdsap256", true},
		{[]string{"engine e [s]: default_algorithms = EC"}, "aes-128-cbc", false},
		{[]string{"engine e [s]: default_algorithms = ALL"}, "ed25519", true},
		{[]string{"provider pkcs11 [k]: activate = 1"}, "sha256", true},
		{nil, "aes-128-cbc", false},
	} {
		got := routedFlag("/etc/ssl/openssl.cnf", c.routes, c.alg)
		if (got != "") != c.want || (got != "" && !strings.Contains(got, "/etc/ssl/openssl.cnf") || got != "" && !strings.Contains(got, c.alg)) {
			t.Errorf("%q, %s: flag %q, want one: %v", c.routes, c.alg, got, c.want)
		}
	}
}

// TestKernelWork: a cpu point whose system time is above its user time is the kernel's work.
func TestKernelWork(t *testing.T) {
	for _, c := range []struct {
		user, sys float64
		want      bool
	}{{1.98, 0.01, false}, {0.02, 0.04, false}, {0.05, 0.34, true}, {0.4, 0.4, false}} {
		if got := kernelWork(&protocol.Point{UserS: c.user, SysS: c.sys}) != ""; got != c.want {
			t.Errorf("user %.2f sys %.2f: kernel work %v, want %v", c.user, c.sys, got, c.want)
		}
	}
}

// TestSweepConfRoutesCPU: a board whose OPENSSL_CONF makes an engine the default for every cipher. The probe
// records the route; the cpu points of a cipher carry the flag (soft's take the same path), a digest's do not; a point that also
// spent its CPU in the kernel is failed, naming both (the fake openssl reads /dev/zero, as an engine handing the
// work to the kernel makes the system time); the same kernel time without the route is only a flag.
func TestSweepConfRoutesCPU(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "openssl.cnf")
	if err := os.WriteFile(conf, []byte("openssl_conf = init\n[init]\nengines = e\n[e]\nafalg = afalg_sect\n[afalg_sect]\ndefault_algorithms = CIPHERS\ninit = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := func(env map[string]string) (protocol.Facts, []*protocol.Point) {
		t.Helper()
		plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Env: env, Algorithms: []string{"aes-128-cbc", "sha256"},
			Modes: []string{"cpu"}, Sizes: []int{16}, Seconds: 1} // soft is a skip under qemu-user on riscv64 and MIPS (test.sh)
		var out bytes.Buffer
		if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
			t.Fatal(err)
		}
		var facts protocol.Facts
		var points []*protocol.Point
		for _, m := range decodeAll(t, out.Bytes()) {
			if m.Facts != nil {
				facts = *m.Facts
			}
			if m.Point != nil {
				points = append(points, m.Point)
			}
		}
		return facts, points
	}

	facts, points := sweep(map[string]string{"OPENSSL_CONF": conf})
	if want := []string{"engine afalg [afalg_sect]: default_algorithms = CIPHERS"}; !slices.Equal(facts.OpenSSLConfRoutes, want) {
		t.Errorf("facts: routes %q, want %q", facts.OpenSSLConfRoutes, want)
	}
	if len(points) != 2 {
		t.Fatalf("%d points, want 2", len(points))
	}
	for _, p := range points {
		flagged := slices.ContainsFunc(p.Flags, func(f string) bool { return strings.Contains(f, conf) && strings.Contains(f, "afalg") })
		if want := p.Algorithm == "aes-128-cbc"; flagged != want || p.Failed {
			t.Errorf("%s %s: flagged %v (flags %q), failed %v: want flagged %v, not failed", p.Mode, p.Algorithm, flagged, p.Flags, p.Failed, want)
		}
	}

	_, points = sweep(map[string]string{"OPENSSL_CONF": conf, "FAKE_SYS": "20000"})
	for _, p := range points {
		if p.Algorithm == "aes-128-cbc" {
			if !p.Failed || !strings.Contains(p.Error, "kernel did most of the work") || !strings.Contains(p.Error, "OpenSSL configuration") {
				t.Errorf("%s %s: failed %v (%q), user %.2f sys %.2f: want failed, naming the kernel's work and the configuration",
					p.Mode, p.Algorithm, p.Failed, p.Error, p.UserS, p.SysS)
			}
		} else if p.Failed || !slices.ContainsFunc(p.Flags, func(f string) bool { return strings.Contains(f, "kernel did most") }) {
			t.Errorf("%s %s: failed %v, flags %q: want a flag of the kernel's work, not a failure", p.Mode, p.Algorithm, p.Failed, p.Flags)
		}
	}
}
