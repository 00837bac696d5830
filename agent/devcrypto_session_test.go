package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/fleetlab/fleet/protocol"
)

// TestCryptodevLayout: the ioctl numbers encode the struct sizes, so the Go structs must be crypto/cryptodev.h's
// to the byte on the agent's architecture: session_op is 7 words with its pointers aligned (48 bytes on 64-bit,
// 28 on 32-bit), session_info_op 4 + 2×128 + 2 + 2 (padding) + 4 = 268 everywhere.
func TestCryptodevLayout(t *testing.T) {
	var s sessionOp
	var i sessionInfoOp
	ptr := unsafe.Sizeof(uintptr(0))
	wantSes := map[uintptr]uintptr{8: 48, 4: 28}[ptr]
	if got := unsafe.Sizeof(s); got != wantSes {
		t.Errorf("session_op is %d bytes, want %d (pointers of %d bytes)", got, wantSes, ptr)
	}
	if got := unsafe.Offsetof(s.Keylen); got != 8 {
		t.Errorf("session_op.keylen at offset %d, want 8 (cipher, mac, keylen)", got)
	}
	if got := unsafe.Sizeof(i); got != 268 {
		t.Errorf("session_info_op is %d bytes, want 268", got)
	}
	if got := unsafe.Offsetof(i.Flags); got != 264 {
		t.Errorf("session_info_op.flags at offset %d, want 264", got)
	}
	// the numbers crypto/cryptodev.h gives on arm64 (_IOWR('c', 102, 48) and _IOWR('c', 107, 268))
	if ptr == 8 {
		if got := iowr('c', 102, unsafe.Sizeof(s)); got != 0xc0306366 {
			t.Errorf("CIOCGSESSION = %#x, want 0xc0306366", got)
		}
	}
	if got := iowr('c', 107, unsafe.Sizeof(i)); got != 0xc10c636b {
		t.Errorf("CIOCGSESSINFO = %#x, want 0xc10c636b", got)
	}
}

// requireDevCrypto skips without /dev/crypto, unless FLEET_REQUIRE_DEVCRYPTO=1 (the lab's qemu-arm64 runs these
// tests on a real cryptodev-linux module) makes its absence a failure.
func requireDevCrypto(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/dev/crypto"); err != nil {
		if os.Getenv("FLEET_REQUIRE_DEVCRYPTO") == "1" {
			t.Fatalf("FLEET_REQUIRE_DEVCRYPTO=1: %v", err)
		}
		t.Skipf("no /dev/crypto (%v); the lab's qemu-arm64 has one", err)
	}
}

// sessionAlgs are the algorithms the device tests open sessions for, with /proc/crypto's name of each.
var sessionAlgs = map[string]string{"aes-128-cbc": "cbc(aes)", "aes-256-ctr": "ctr(aes)", "sha256": "sha256", "sha1": "sha1"}

// TestDevcryptoDriverDevice asks a real /dev/crypto which driver serves a session and checks the answer against
// /proc/crypto: a registered driver of the algorithm's name, not a guess.
func TestDevcryptoDriverDevice(t *testing.T) {
	requireDevCrypto(t)
	procs := readProcCryptoT(t)
	for alg, name := range sessionAlgs {
		ses, err := devcryptoDriver("/dev/crypto", alg)
		if err != nil {
			t.Errorf("%s: %v", alg, err)
			continue
		}
		if !hasDriver(procs, name, ses.Driver) {
			t.Errorf("%s: cryptodev names driver %q, which /proc/crypto does not list for %s", alg, ses.Driver, name)
		}
		t.Logf("%s (%s): %s on %s, kernel-driver-only %v", alg, name, ses.Driver, runtime.GOARCH, ses.KernelOnly)
	}
}

func readProcCryptoT(t *testing.T) []protocol.CryptoAlg {
	t.Helper()
	f, err := os.Open("/proc/crypto")
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

func hasDriver(procs []protocol.CryptoAlg, name, driver string) bool {
	for _, a := range procs {
		if a.Name == name && a.Driver == driver {
			return true
		}
	}
	return false
}

// TestSweepDevcryptoDriverDevice: a sweep of mode devcrypto stores with every point the driver a real
// /dev/crypto names for a session of its algorithm, without the driver-inferred flag, when the OpenSSL
// configuration lets the devcrypto engine use it (USE_SOFTDRIVERS = 1); without that setting a driver cryptodev
// does not mark kernel-driver-only is one the engine refuses, and the points are failed as software, with no
// driver, unless the engine was built to take it (its help says [default=1], as the lab's lab/devcrypto build's
// does). openssl is the fake with a devcrypto engine (FAKE_DEVCRYPTO=1), since Debian's OpenSSL 3.0 ships none;
// the probe, /dev/crypto, the CIOCGSESSION/CIOCGSESSINFO calls and /proc/crypto are the board's.
func TestSweepDevcryptoDriverDevice(t *testing.T) {
	requireDevCrypto(t)
	procs := readProcCryptoT(t)
	dir := t.TempDir()
	soft := filepath.Join(dir, "soft.cnf")
	conf := "openssl_conf = init\n[init]\nengines = eng\n[eng]\ndevcrypto = dc\n[dc]\nUSE_SOFTDRIVERS = 1\n"
	if err := os.WriteFile(soft, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.cnf")
	if err := os.WriteFile(empty, []byte("# no engines\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		conf      string
		def       string // the engine's built-in USE_SOFTDRIVERS default, as its help names it ("": none)
		softOK    bool
		wantError string
	}{{soft, "", true, ""}, {empty, "", false, "engine devcrypto does not use "}, {empty, "1", true, ""}} {
		plan := protocol.Plan{
			OpenSSL:    writeFakeOpenSSL(t),
			Env:        map[string]string{"FAKE_DEVCRYPTO": "1", "FAKE_DEVCRYPTO_DEFAULT": c.def, "OPENSSL_CONF": c.conf},
			Algorithms: []string{"aes-128-cbc", "sha256"},
			Modes:      []string{"devcrypto"},
			Sizes:      []int{16, 1024},
			Seconds:    1,
		}
		var out bytes.Buffer
		done, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range decodeAll(t, out.Bytes()) {
			switch m.Type {
			case protocol.TypeSkip:
				t.Errorf("%s: skip %+v, want devcrypto measured", c.conf, *m.Skip)
			case protocol.TypePoint:
				p := m.Point
				n++
				ses, err := devcryptoDriver("/dev/crypto", p.Algorithm)
				if err != nil {
					t.Fatalf("%s: %v", p.Algorithm, err)
				}
				for _, f := range p.Flags {
					if strings.HasPrefix(f, "driver-inferred") {
						t.Errorf("%s: point %s %d B flagged %q", c.conf, p.Algorithm, p.BlockSize, f)
					}
				}
				if ses.KernelOnly || c.softOK {
					if p.Mode != "devcrypto" || p.Failed || p.Driver != ses.Driver || !hasDriver(procs, sessionAlgs[p.Algorithm], p.Driver) {
						t.Errorf("%s: point %s %s %d B: driver %q failed %v (%s), want %q (cryptodev's, listed in /proc/crypto as %s)",
							c.conf, p.Mode, p.Algorithm, p.BlockSize, p.Driver, p.Failed, p.Error, ses.Driver, sessionAlgs[p.Algorithm])
					}
				} else if !p.Failed || p.Driver != "" || !strings.HasPrefix(p.Error, c.wantError+ses.Driver) {
					t.Errorf("%s: point %s %d B: failed %v, driver %q, error %q; want failed, no driver, error %q…",
						c.conf, p.Algorithm, p.BlockSize, p.Failed, p.Driver, p.Error, c.wantError+ses.Driver)
				}
				t.Logf("%s: %s %d B: driver %q failed %v %s", filepath.Base(c.conf), p.Algorithm, p.BlockSize, p.Driver, p.Failed, p.Error)
			}
		}
		if n != 4 || done.Points != 4 {
			t.Errorf("%s: %d points (done %+v), want 4: 2 algorithms x 2 sizes", c.conf, n, done)
		}
	}
}

// TestEngineSetting: an engine's control is read from the section the configuration loads for it, by its name
// in the engines list or by engine_id.
func TestEngineSetting(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"openssl_conf = init\n[init]\nengines = eng\n[eng]\ndevcrypto = dc\n[dc]\nUSE_SOFTDRIVERS = 1\n", "1"},
		{"openssl_conf = init\n[init]\nengines = eng\n[eng]\nmine = dc\n[dc]\nengine_id = devcrypto\nUSE_SOFTDRIVERS = 0\n", "0"},
		{"openssl_conf = init\n[init]\nengines = eng\n[eng]\nafalg = dc\n[dc]\nUSE_SOFTDRIVERS = 1\n", ""},
		{"[dc]\nUSE_SOFTDRIVERS = 1\n", ""},
		{"", ""},
	} {
		if got := engineSetting(parseOpenSSLConf(c.conf), "devcrypto", "USE_SOFTDRIVERS"); got != c.want {
			t.Errorf("engineSetting(%q) = %q, want %q", c.conf, got, c.want)
		}
	}
}

// TestSoftDriversDefault: the built-in USE_SOFTDRIVERS default is read from `openssl engine -vvv devcrypto` as
// OpenSSL 3.0's engine prints it: stock (2) and the QEMU lab's build (1, lab/devcrypto), the latter as the lab's
// qemu-arm64 printed it; an engine without the control (a build without CIOCGSESSINFO) names none.
func TestSoftDriversDefault(t *testing.T) {
	lab := "(devcrypto) /dev/crypto engine\n" +
		"     USE_SOFTDRIVERS: specifies whether to use software (not accelerated) drivers (0=use only accelerated drivers, " +
		"1=allow all drivers, 2=use if acceleration can't be determined) [default=1]\n" +
		"          (input flags): NUMERIC\n" +
		"     CIPHERS: either ALL, NONE, or a comma-separated list of ciphers to enable [default=ALL]\n" +
		"          (input flags): STRING\n"
	for _, c := range []struct{ out, want string }{
		{lab, "1"},
		{strings.Replace(lab, "[default=1]", "[default=2]", 1), "2"},
		{"(devcrypto) /dev/crypto engine\n     CIPHERS: either ALL, NONE, or a comma-separated list of ciphers to enable [default=ALL]\n", ""},
		{"", ""},
	} {
		if got := softDriversDefault(c.out); got != c.want {
			t.Errorf("softDriversDefault(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

// TestDevcryptoSoftDriversSource: the configuration's USE_SOFTDRIVERS wins; where it sets none the engine's own
// default counts, asked of the sweep's openssl (the fake, whose help names FAKE_DEVCRYPTO_DEFAULT) with the speed
// command's environment; an engine that names none leaves "" (the engine's stock 2). Asked once per sweep.
func TestDevcryptoSoftDriversSource(t *testing.T) {
	dir := t.TempDir()
	sets0 := filepath.Join(dir, "sets0.cnf")
	conf := "openssl_conf = init\n[init]\nengines = eng\n[eng]\ndevcrypto = dc\n[dc]\nUSE_SOFTDRIVERS = 0\n"
	if err := os.WriteFile(sets0, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.cnf")
	if err := os.WriteFile(empty, []byte("# no engines\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := writeFakeOpenSSL(t)
	for _, c := range []struct {
		conf, def, want, why string
	}{
		{sets0, "1", "0", sets0 + " sets 0"},
		{empty, "1", "1", "does not set it; the engine's default is 1 (openssl engine -vvv devcrypto)"},
		{empty, "", "", "names no default: engine default 2"},
		{filepath.Join(dir, "missing.cnf"), "1", "1", "no such file or directory; the engine's default is 1"},
		{"", "2", "2", "no OpenSSL configuration file known; the engine's default is 2"},
	} {
		s := &sweepState{facts: protocol.Facts{OpenSSLConf: c.conf}}
		cmd := &speedCommand{Argv: []string{fake, "speed"}, Env: []string{"FAKE_DEVCRYPTO=1", "FAKE_DEVCRYPTO_DEFAULT=" + c.def}}
		if got := s.devcryptoSoftDrivers(context.Background(), cmd); got != c.want || !strings.Contains(s.softDriversWhy, c.why) {
			t.Errorf("conf %q, engine default %q: %q (%s), want %q (…%s…)", c.conf, c.def, got, s.softDriversWhy, c.want, c.why)
		}
		// the answer is kept: a second call asks nothing (an openssl that no longer runs changes nothing)
		cmd.Argv[0] = filepath.Join(dir, "gone")
		if got := s.devcryptoSoftDrivers(context.Background(), cmd); got != c.want {
			t.Errorf("conf %q: second call %q, want the kept %q", c.conf, got, c.want)
		}
	}
}
