package protocol

import (
	"strings"
	"testing"
)

func TestIsCPUDriver(t *testing.T) {
	for _, tc := range []struct {
		driver string
		cpu    bool
	}{
		{"cbc-aes-ce", true}, {"cbc-aes-neonbs", true}, {"cbc-aes-neon", true}, {"aes-arm64", true},
		{"cbc(aes-generic)", true}, {"cbc(aes-arm)", true}, {"cryptd(__cbc-aes-neonbs)", true},
		{"__cbc-aes-neonbs", true}, {"gcm_base(ctr(aes-ce),ghash-ce)", true}, {"cbc(ecb(aes-fixed-time))", true},
		{"cbc-aes-aesni", true}, {"sha256-avx2", true}, {"sha256-ni", true}, {"crc32c-intel", true},
		{"ghash-ce-sync", true}, {"lzo-scomp", true}, {"ecb-cipher_null", true}, {"sha256-lib", true},
		{"virtio_crypto_aes_cbc", false}, {"cbc-aes-sa2ul", false}, {"cbc-aes-caam", false}, {"cbc-aes-rk", false},
		{"xts(ecb-aes-caam)", false}, {"cbc-aes-sun8i-ce", false}, {"cbc-aes-omap", false},
		{"authenc(hmac(sha256),cbc(aes))-sa2ul", false}, {"gcm_base(ctr(aes-ce),ghash-caam)", false},
		{"", false}, {"aes", false}, {"cbc()", false}, {"(", false},
	} {
		if got := IsCPUDriver(tc.driver); got != tc.cpu {
			t.Errorf("IsCPUDriver(%q) = %v, want %v", tc.driver, got, tc.cpu)
		}
	}
}

func TestIsOffload(t *testing.T) {
	virtio := CryptoAlg{Name: "cbc(aes)", Driver: "virtio_crypto_aes_cbc", Type: "skcipher", Selftest: "passed", Async: true}
	for _, tc := range []struct {
		why  string
		a    CryptoAlg
		want bool
	}{
		{"async device driver", virtio, true},
		{"sync: the CPU does the work while the caller waits", CryptoAlg{Driver: "cbc-aes-dev", Async: false}, false},
		{"async shell around a CPU routine", CryptoAlg{Driver: "cbc-aes-neonbs", Async: true}, false},
		{"cryptd around a CPU routine", CryptoAlg{Driver: "cryptd(__cbc-aes-neonbs)", Async: true}, false},
		{"internal", CryptoAlg{Driver: "__cbc-aes-caam", Async: true, Internal: true}, false},
		{"failed self-test", CryptoAlg{Driver: "cbc-aes-caam", Async: true, Selftest: "failed"}, false},
	} {
		if got := IsOffload(tc.a); got != tc.want {
			t.Errorf("%s: IsOffload(%+v) = %v, want %v", tc.why, tc.a, got, tc.want)
		}
	}
}

func TestKCAPIModes(t *testing.T) {
	for _, tc := range []struct {
		mode, driver   string
		isDriver, kcap bool
		accelerated    bool
	}{
		{"kcapi", "", false, true, true},
		{"kcapi:all", "", false, true, true},
		{"kcapi:virtio_crypto_aes_cbc", "virtio_crypto_aes_cbc", true, true, true},
		{"kcapi:cbc-aes-ce", "cbc-aes-ce", true, true, false},
		{"kcapi:", "", false, true, true},
		{"cpu", "", false, false, false},
		{"afalg", "", false, false, true},
	} {
		d, ok := KCAPIDriver(tc.mode)
		if d != tc.driver || ok != tc.isDriver || IsKCAPIMode(tc.mode) != tc.kcap || IsAccelerated(tc.mode) != tc.accelerated {
			t.Errorf("%s: KCAPIDriver = %q, %v; IsKCAPIMode %v; IsAccelerated %v", tc.mode, d, ok, IsKCAPIMode(tc.mode), IsAccelerated(tc.mode))
		}
	}
	plan := []string{"cpu", "kcapi:all", "kcapi:cbc-aes-ce"}
	for _, tc := range []struct {
		mode, want string
		ok         bool
	}{
		{"cpu", "cpu", true}, {"kcapi:cbc-aes-ce", "kcapi:cbc-aes-ce", true},
		{"kcapi:virtio_crypto_aes_cbc", "kcapi:all", true}, {"kcapi", "", false}, {"soft", "", false},
	} {
		if got, ok := PlanMode(plan, tc.mode); got != tc.want || ok != tc.ok {
			t.Errorf("PlanMode(%q) = %q, %v, want %q, %v", tc.mode, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := PlanMode([]string{"cpu"}, "kcapi:cbc-aes-ce"); ok {
		t.Errorf("PlanMode: a driver's point is covered by a plan without kcapi:all or the driver")
	}
}

func TestCheckKCAPIDriverName(t *testing.T) {
	for _, ok := range []string{"cbc-aes-ce", "virtio_crypto_aes_cbc", "cbc(aes-generic)", "authenc(hmac(sha256),cbc(aes))-sa2ul",
		strings.Repeat("a", MaxKCAPIDriverLen)} {
		if why := CheckKCAPIDriverName(ok); why != "" {
			t.Errorf("CheckKCAPIDriverName(%q) = %q, want ok", ok, why)
		}
	}
	for _, bad := range []string{"", "a b", "$(id)", "cbc(aes", "cbc)aes(", "x;y", "é", strings.Repeat("a", MaxKCAPIDriverLen+1)} {
		if CheckKCAPIDriverName(bad) == "" {
			t.Errorf("CheckKCAPIDriverName(%q): accepted", bad)
		}
	}
}

// FuzzKCAPIDriverName: any driver name from a board's /proc/crypto or the command line is checked and
// classified without a panic, and a name the check accepts fits AF_ALG's salg_name.
func FuzzKCAPIDriverName(f *testing.F) {
	for _, s := range []string{"cbc-aes-ce", "cryptd(__cbc-aes-neonbs)", "gcm_base(ctr(aes-ce),ghash-ce)", "((", "))", "a,(b,c)", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, d string) {
		_ = IsCPUDriver(d)
		_ = IsAccelerated(KCAPIPrefix + d)
		if CheckKCAPIDriverName(d) == "" && (len(d) == 0 || len(d) > MaxKCAPIDriverLen || strings.ContainsAny(d, " \x00$;")) {
			t.Errorf("CheckKCAPIDriverName(%q) accepted a name AF_ALG cannot bind", d)
		}
	})
}
