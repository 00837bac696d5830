package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// readProcCryptoFixture parses one of testdata/proc's captures (provenance in its README.md).
func readProcCryptoFixture(t *testing.T, file string) []protocol.CryptoAlg {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "proc", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	algs, err := ParseProcCrypto(f)
	if err != nil {
		t.Fatal(err)
	}
	return algs
}

// TestOffloadSelectionFixtures: on /proc/crypto lists of boards with an offload engine (the lab's virtio-crypto,
// TI SA2UL, NXP CAAM, Rockchip crypto), the offload drivers are found, every CPU implementation is told apart,
// kcapi:all lists every implementation of cbc(aes) highest priority first, and plain kcapi still gets the
// kernel's own pick.
func TestOffloadSelectionFixtures(t *testing.T) {
	for _, tc := range []struct {
		file    string
		offload []string // protocol.OffloadDrivers, in file order
		cbc     []string // protocol.Implementations of cbc(aes) for a skcipher socket
		pick    string   // the kernel's pick for cbc(aes)
	}{
		{"qemu-arm64-virtio-proc-crypto.txt", []string{"virtio_crypto_aes_cbc"},
			[]string{"cbc-aes-ce", "cbc-aes-neonbs", "virtio_crypto_aes_cbc"}, "cbc-aes-ce"},
		{"am64x-like-proc-crypto.txt",
			[]string{"cbc-aes-sa2ul", "ecb-aes-sa2ul", "sha256-sa2ul", "sha512-sa2ul", "authenc(hmac(sha256),cbc(aes))-sa2ul"},
			[]string{"cbc-aes-sa2ul", "cbc-aes-ce", "cbc-aes-neonbs", "cbc(aes-generic)"}, "cbc-aes-sa2ul"},
		{"imx6ul-caam-proc-crypto.txt",
			[]string{"echainiv-authenc-hmac-sha256-cbc-aes-caam", "cbc-aes-caam", "xts(ecb-aes-caam)"},
			[]string{"cbc-aes-caam", "cbc(aes-generic)"}, "cbc-aes-caam"},
		{"rk3588-like-proc-crypto.txt",
			[]string{"cbc-aes-rk", "ecb-aes-rk", "ctr-aes-rk", "gcm-aes-rk", "sha256-rk", "sha1-rk"},
			// a tie at 300: the list keeps /proc/crypto's order, as the kernel's lookup meets them
			[]string{"cbc-aes-rk", "cbc-aes-ce", "cbc-aes-neonbs"}, "cbc-aes-rk"},
		{"qemu-arm64-max-proc-crypto.txt", nil, []string{"cbc-aes-neonbs"}, ""}, // an excerpt
		{"qemu-armv7-a15-proc-crypto.txt", nil, []string{"cbc(aes-arm)", "cbc-aes-neonbs"}, ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			algs := readProcCryptoFixture(t, tc.file)
			if got := protocol.OffloadDrivers(algs); !slices.Equal(got, tc.offload) {
				t.Errorf("OffloadDrivers = %q, want %q", got, tc.offload)
			}
			var cbc []string
			for _, a := range protocol.Implementations(algs, "cbc(aes)", "skcipher") {
				cbc = append(cbc, a.Driver)
			}
			if !slices.Equal(cbc, tc.cbc) {
				t.Errorf("Implementations(cbc(aes)) = %q, want %q", cbc, tc.cbc)
			}
			if tc.pick != "" {
				if got := bestCryptoDriver(algs, "cbc(aes)", "skcipher"); got != tc.pick {
					t.Errorf("kernel's pick for cbc(aes) = %q, want %q", got, tc.pick)
				}
			}
			// every driver is either an offload one or a CPU implementation by name (the akcipher and rng
			// entries aside, which no kcapi mode binds)
			for _, a := range algs {
				if a.Type == "akcipher" || a.Type == "rng" || slices.Contains(tc.offload, a.Driver) {
					continue
				}
				if !protocol.IsCPUDriver(a.Driver) {
					t.Errorf("driver %q (%s): not a CPU implementation by name, and not an offload driver", a.Driver, a.Name)
				}
				if protocol.IsAccelerated(protocol.KCAPIPrefix + a.Driver) {
					t.Errorf("mode kcapi:%s counts as an accelerator", a.Driver)
				}
			}
			for _, d := range tc.offload {
				if !protocol.IsAccelerated(protocol.KCAPIPrefix + d) {
					t.Errorf("mode kcapi:%s does not count as an accelerator", d)
				}
			}
		})
	}
}
