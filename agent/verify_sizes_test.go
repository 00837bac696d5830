package agent

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

// fakeCBCDriver is a kernel driver behind the agent's one-piece requests: AES-CBC from Go's crypto with the
// verification's key and IV, wrong (first byte flipped) on every request of exactly badSize bytes; it counts the
// request sizes it saw.
type fakeCBCDriver struct {
	badSize int
	mu      sync.Mutex // the concurrency check's workers call at once
	seen    []int
}

func (d *fakeCBCDriver) request(mode, alg, op string, in []byte) ([]byte, error) {
	d.mu.Lock()
	d.seen = append(d.seen, len(in))
	d.mu.Unlock()
	spec := protocol.VerifyCiphers[alg]
	b, err := aes.NewCipher(protocol.VerifyPattern(spec.KeyLen, protocol.VerifySeedKey))
	if err != nil {
		return nil, err
	}
	iv := protocol.VerifyPattern(spec.IVLen, protocol.VerifySeedIV)
	out := make([]byte, len(in))
	if op == "decrypt" {
		cipher.NewCBCDecrypter(b, iv).CryptBlocks(out, in)
	} else {
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, in)
	}
	if len(in) == d.badSize {
		out[0] ^= 1
	}
	return out, nil
}

// verifyWith runs the verification of mode and alg with openssl at argv0 over the default sizes and judges it.
func verifyWith(t *testing.T, argv0, mode, alg string, direct directRequest) (protocol.VerifyReport, verify.Result) {
	t.Helper()
	s := &sweepState{plan: protocol.Plan{Sizes: protocol.DefaultSizes}, direct: direct}
	r := s.verifyOpenSSL(context.Background(), argv0, opensslVersion{Major: 3, Patch: 19}, mode, alg)
	r.Mode, r.Algorithm = mode, alg
	if err := r.Validate(); err != nil {
		t.Fatalf("the report does not validate: %v", err)
	}
	return r, verify.Judge(r)
}

func needOpenSSL(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl on PATH")
	}
}

// TestVerifyEachSizeItsOwnRun: an openssl wrong only for an 8192-byte input is wrong, named at 8192 B (a
// verification that took the 8192 B output as the prefix of the 65536 B run's said ok); the real openssl is ok at
// every size, each size run once each way, with the request size openssl enc hands the cipher.
func TestVerifyEachSizeItsOwnRun(t *testing.T) {
	needOpenSSL(t)
	bad, _ := filepath.Abs("testdata/verify/openssl-corrupt-8192")
	_, res := verifyWith(t, bad, protocol.ModeCPU, "aes-128-cbc", nil)
	if res.Verdict != protocol.VerificationWrong || !strings.HasPrefix(res.Detail, "encrypt 8192 B in requests of 4096 B: first difference in bytes 0–255") {
		t.Errorf("openssl wrong at 8192 B only: %s %q, want wrong at encrypt 8192 B", res.Verdict, res.Detail)
	}
	for _, alg := range []string{"aes-128-cbc", "aes-128-ctr", "sha256"} {
		r, res := verifyWith(t, "openssl", protocol.ModeCPU, alg, nil)
		if res.Verdict != protocol.VerificationOK {
			t.Fatalf("%s with the real openssl: %s %q", alg, res.Verdict, res.Detail)
		}
		got := map[string][]int{}
		for _, c := range r.Cases {
			got[c.Op] = append(got[c.Op], c.Size)
			limit := opensslEncChunk
			if c.Op == "digest" {
				limit = opensslDgstChunk
			}
			if want := min(c.Size, limit); c.Request != want || c.Via != "" {
				t.Errorf("%s %s %d B: request %d via %q, want %d through openssl", alg, c.Op, c.Size, c.Request, c.Via, want)
			}
		}
		sizes := verifySizes(protocol.Plan{})
		if alg == "sha256" {
			if !slices.Equal(got["digest"], sizes) {
				t.Errorf("sha256 digests of %v, want each of %v once", got["digest"], sizes)
			}
			continue
		}
		if !slices.Equal(got["encrypt"], sizes) {
			t.Errorf("%s encrypts %v, want each of %v once", alg, got["encrypt"], sizes)
		}
		if spec := protocol.VerifyCiphers[alg]; spec.Block == 1 && !slices.Equal(got["decrypt"], sizes) {
			t.Errorf("%s decrypts %v, want each of %v once", alg, got["decrypt"], sizes)
		}
	}
}

// TestVerifyOnePieceRequests: mode afalg is verified in two parts (verify_engine.go). A kernel driver wrong only
// on 8192-byte requests, or only on 64-byte ones (a size openssl no longer runs through the engine), is caught
// by the agent's own request of that size, named with the way it went; a right driver is ok with every size
// reached whole, the padded ones in one request of the padded length, both ways, and openssl ran only the
// engine's glue: encrypt 4097 and 65536 B, decrypt 65536 B. On the shell path (no agent on the board) there
// are no such requests.
func TestVerifyOnePieceRequests(t *testing.T) {
	needOpenSSL(t)
	glue, _ := filepath.Abs("testdata/verify/openssl-engine-passthrough")
	for _, bad := range []int{8192, 64} {
		broken := &fakeCBCDriver{badSize: bad}
		_, res := verifyWith(t, glue, protocol.ModeAFALG, "aes-128-cbc", broken.request)
		want := fmt.Sprintf("encrypt %d B in one request through af_alg skcipher cbc(aes): first differ", bad)
		if res.Verdict != protocol.VerificationWrong || !strings.HasPrefix(res.Detail, want) || res.Size != bad {
			t.Errorf("driver wrong on %d B requests: %s %q, want wrong: %q…", bad, res.Verdict, res.Detail, want)
		}
	}
	right := &fakeCBCDriver{}
	r, res := verifyWith(t, glue, protocol.ModeAFALG, "aes-128-cbc", right.request)
	if res.Verdict != protocol.VerificationOK || len(res.Chunked) != 0 {
		t.Errorf("driver right at every size: %s %q, chunked %v; want ok, every size whole", res.Verdict, res.Detail, res.Chunked)
	}
	// encrypt: 1, 15, 16 and 17 B padded to 16, 16, 16 and 32; 4095 and 4097 to 4096 and 4112; decrypt whole blocks
	if want := []int{16, 16, 16, 32, 64, 256, 1024, 4096, 4096, 4112, 8192, 16384, 65536,
		16, 64, 256, 1024, 4096, 8192, 16384, 65536}; !slices.Equal(right.seen, want) {
		t.Errorf("the driver saw requests of %v, want %v (every size in one piece, each way)", right.seen, want)
	}
	var enc []string
	for _, c := range r.Cases {
		if c.Via == "" {
			enc = append(enc, fmt.Sprintf("%s %d", c.Op, c.Size))
		}
	}
	if want := []string{"encrypt 4097", "encrypt 65536", "decrypt 65536"}; !slices.Equal(enc, want) {
		t.Errorf("openssl enc ran %q, want only the engine's glue %q", enc, want)
	}
	shell := &sweepState{remote: struct{ Remote }{}}
	if cs := shell.directCases(nil, protocol.ModeAFALG, "aes-128-cbc", []int{8192}, false, 16, opensslEncChunk); len(cs) != 0 {
		t.Errorf("the shell path made %d one-piece requests, want none (the agent is not on the board)", len(cs))
	}
	if shell.engineGlue(protocol.ModeAFALG, "aes-128-cbc") {
		t.Error("the shell path verifies afalg in two parts, want every size through openssl (no agent there)")
	}
}

// TestVerifyEngineGlueWrong: an engine whose glue is wrong only past the first 4 KiB update (the fake openssl
// wrong at 65536 B) fails afalg at 65536 B through openssl, though the driver is right at every size.
func TestVerifyEngineGlueWrong(t *testing.T) {
	needOpenSSL(t)
	bad, _ := filepath.Abs("testdata/verify/openssl-corrupt-8192")
	glue, _ := filepath.Abs("testdata/verify/openssl-engine-passthrough")
	t.Setenv("FLEET_TEST_CORRUPT_SIZE", "65536")
	t.Setenv("FLEET_TEST_OPENSSL", glue)
	_, res := verifyWith(t, bad, protocol.ModeAFALG, "aes-128-cbc", (&fakeCBCDriver{}).request)
	if want := "encrypt 65536 B in requests of 4096 B: first difference in bytes 0–255"; res.Verdict != protocol.VerificationWrong || !strings.HasPrefix(res.Detail, want) {
		t.Errorf("engine glue wrong at 65536 B: %s %q, want %q…", res.Verdict, res.Detail, want)
	}
}

func mapsEqual(a, b map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestVerifyArgvOpenSSL10: every option the verification's enc and dgst pass is one OpenSSL 1.0.x's enc and
// dgst know (the shell path's boards run 1.0.x), and none changes the request size.
func TestVerifyArgvOpenSSL10(t *testing.T) {
	known := map[string]bool{"-e": true, "-d": true, "-K": true, "-iv": true, "-nopad": true, "-in": true, "-out": true, "-engine": true}
	o := &opensslVerifier{argv0: "openssl", alg: "aes-128-cbc", opts: []string{"-engine", "cryptodev"}}
	spec := protocol.VerifyCiphers["aes-128-cbc"]
	for _, dec := range []bool{false, true} {
		argv := o.encArgv(spec, "in", "out", dec, !dec)
		if argv[1] != "enc" || argv[2] != "-aes-128-cbc" {
			t.Fatalf("argv %q", argv)
		}
		for _, a := range argv[3:] {
			if strings.HasPrefix(a, "-") && !known[a] {
				t.Errorf("enc argv %q: %s is not an option of OpenSSL 1.0.x's enc", argv, a)
			}
		}
	}
}

// TestVerifyEngineConcurrencyDirect: afalg's concurrency check runs the agent's own requests (thousands in the
// time a worker did a few openssl starts): a right driver is ok, one wrong on the check's 16384-byte input is
// wrong under load, and no `openssl enc` of the check ran (its workers write no conc- files).
func TestVerifyEngineConcurrencyDirect(t *testing.T) {
	needOpenSSL(t)
	glue, _ := filepath.Abs("testdata/verify/openssl-engine-passthrough")
	for _, tc := range []struct {
		bad  int
		want string
	}{{0, protocol.VerificationOK}, {16384, protocol.VerificationWrong}} {
		d := &fakeCBCDriver{badSize: tc.bad}
		s := &sweepState{plan: protocol.Plan{Sizes: []int{16384}, VerifyThreads: 2, VerifySeconds: 0.2}, direct: d.request}
		r := s.verifyOpenSSL(context.Background(), glue, opensslVersion{Major: 3}, protocol.ModeAFALG, "aes-128-cbc")
		r.Mode, r.Algorithm = protocol.ModeAFALG, "aes-128-cbc"
		c := r.Concurrency
		if c == nil || c.Workers != 2 || c.Size != 16384 || c.Ops < 10 {
			t.Fatalf("bad %d: concurrency %+v, want 2 workers, 16384 B, at least 10 requests in 0.2 s", tc.bad, c)
		}
		r.Cases = slices.DeleteFunc(r.Cases, func(c protocol.VerifyCase) bool { return c.Size == 16384 })
		if res := verify.Judge(r); res.Verdict != tc.want {
			t.Errorf("driver wrong at %d B under load: %s %q, want %s", tc.bad, res.Verdict, res.Detail, tc.want)
		}
	}
}

// TestVerifyConcurrencyOncePerDriver: afalg's concurrency check of cbc(aes) stands for kcapi's on cbc(aes) (the
// same requests to the same driver), which then runs none, while kcapi keeps its check for another algorithm
// (sha256). Without AF_ALG here kcapi's check fails, but it runs: that is what is counted.
func TestVerifyConcurrencyOncePerDriver(t *testing.T) {
	needOpenSSL(t)
	glue, _ := filepath.Abs("testdata/verify/openssl-engine-passthrough")
	s := &sweepState{plan: protocol.Plan{Sizes: []int{16}, VerifyThreads: 2, VerifySeconds: 0.05}, direct: (&fakeCBCDriver{}).request}
	if r := s.verifyOpenSSL(context.Background(), glue, opensslVersion{Major: 3}, protocol.ModeAFALG, "aes-128-cbc"); r.Concurrency == nil {
		t.Fatal("afalg: no concurrency check")
	}
	if r := s.verifyKcapi(context.Background(), protocol.ModeKCAPI, "aes-128-cbc", ""); r.Concurrency != nil {
		t.Errorf("kcapi aes-128-cbc after afalg's check: %+v, want none (the same driver under the same load)", r.Concurrency)
	}
	if r := s.verifyKcapi(context.Background(), protocol.ModeKCAPI, "sha256", ""); r.Concurrency == nil {
		t.Error("kcapi sha256: no concurrency check, want kcapi's own (afalg's was of cbc(aes))")
	}
}
