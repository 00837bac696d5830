package agent

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestSweepKcapiDriversOnThisKernel runs kcapi:all and kcapi:DRIVER through this machine's real AF_ALG: every
// implementation of cbc(aes) that /proc/crypto lists gets points under its own mode kcapi:DRIVER with that driver
// recorded (the same benchmark as plain kcapi, bound by the driver name), a driver of another algorithm is a skip
// with the reason, and so is a driver the kernel does not have.
func TestSweepKcapiDriversOnThisKernel(t *testing.T) {
	if err := kcapiSocketWorks(); err != nil {
		t.Skipf("AF_ALG not usable on this kernel (%v)", err)
	}
	aesCBC, _ := kcapiSpecOf("aes-128-cbc")
	if err := kcapiProbe(aesCBC); err != nil {
		t.Skipf("kernel cannot do cbc(aes) through AF_ALG: %v", err)
	}
	b, err := os.ReadFile("/proc/crypto")
	if err != nil {
		t.Skip(err)
	}
	algs, _ := ParseProcCrypto(bytes.NewReader(b))
	var want []string // the implementations kcapi:all must measure
	for _, a := range protocol.Implementations(algs, "cbc(aes)", "skcipher") {
		if a.Selftest == "" || a.Selftest == "passed" {
			want = append(want, a.Driver)
		}
	}
	sha := bestCryptoDriver(algs, "sha256", "hash")
	if len(want) == 0 || sha == "" {
		t.Skipf("/proc/crypto lists no cbc(aes) or sha256 implementation")
	}
	modes := []string{protocol.KCAPIAll, protocol.KCAPIPrefix + want[0], protocol.KCAPIPrefix + sha, "kcapi:no-such-driver"}
	plan := protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Modes: modes, Sizes: []int{16, 1024}, Seconds: 0.05}
	var out bytes.Buffer
	if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{} // mode → points
	skips := map[string]string{}
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypeFacts:
			for _, mf := range m.Facts.Modes {
				if mf.Mode == "kcapi:no-such-driver" && (mf.Available || !strings.Contains(mf.Reason, "no driver no-such-driver")) {
					t.Errorf("probe: %+v, want kcapi:no-such-driver unavailable with the reason", mf)
				}
			}
		case protocol.TypePoint:
			p := m.Point
			d, ok := protocol.KCAPIDriver(p.Mode)
			if !ok || p.Driver != d || p.Failed || p.BytesPerSec <= 0 {
				t.Errorf("point %s %d B: driver %q failed %v rate %v", p.Mode, p.BlockSize, p.Driver, p.Failed, p.BytesPerSec)
			}
			got[p.Mode]++
		case protocol.TypeSkip:
			skips[m.Skip.Mode] = m.Skip.Reason
		case protocol.TypeError:
			t.Errorf("agent error: %s", m.Error)
		}
	}
	for _, d := range want {
		if n := got[protocol.KCAPIPrefix+d]; n < 2 {
			t.Errorf("kcapi:%s: %d points, want one per size from kcapi:all at least", d, n)
		}
	}
	// kcapi:all and kcapi:DRIVER both measured the first driver: two points per size under the one mode
	if n := got[protocol.KCAPIPrefix+want[0]]; n != 4 {
		t.Errorf("kcapi:%s: %d points, want 4 (2 sizes, asked by kcapi:all and by name)", want[0], n)
	}
	if why := skips[protocol.KCAPIPrefix+sha]; !strings.Contains(why, "implements sha256, not cbc(aes)") {
		t.Errorf("kcapi:%s for aes-128-cbc: skip %q, want the driver's algorithm named", sha, why)
	}
	if why := skips["kcapi:no-such-driver"]; !strings.Contains(why, "no driver no-such-driver in /proc/crypto") {
		t.Errorf("kcapi:no-such-driver: skip %q", why)
	}
}

// TestKcapiDriverServes: a driver is checked against /proc/crypto before it is bound, since the kernel refuses a
// driver of another kind with a bare ENOENT; a template instance not listed yet is left to the bind.
func TestKcapiDriverServes(t *testing.T) {
	algs := readProcCryptoFixture(t, "qemu-arm64-virtio-proc-crypto.txt")
	spec, _ := kcapiSpecOf("aes-128-cbc")
	for _, tc := range []struct{ driver, want string }{
		{"virtio_crypto_aes_cbc", ""},
		{"cbc-aes-ce", ""},
		{"sha256-ce", "kcapi: driver sha256-ce implements sha256, not cbc(aes) (aes-128-cbc)"},
		{"ecb-aes-ce", "kcapi: driver ecb-aes-ce implements ecb(aes), not cbc(aes) (aes-128-cbc)"},
		{"cbc(aes-generic)", kcapiNotListed},
	} {
		if got := kcapiDriverServes(algs, tc.driver, spec, "aes-128-cbc"); got != tc.want {
			t.Errorf("kcapiDriverServes(%s) = %q, want %q", tc.driver, got, tc.want)
		}
	}
	if got := kcapiDriverServes(nil, "cbc-aes-ce", spec, "aes-128-cbc"); !strings.Contains(got, "cannot be read") {
		t.Errorf("without /proc/crypto: %q", got)
	}
}
