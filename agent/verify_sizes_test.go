package agent

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

// fakeCBCDriver is a kernel driver behind the agent's one-piece requests: AES-CBC from Go's crypto with the
// verification's key and IV, wrong (first byte flipped) on every request of exactly badSize bytes; it counts the
// request sizes it saw.
type fakeCBCDriver struct {
	badSize int
	seen    []int
}

func (d *fakeCBCDriver) request(mode, alg, op string, in []byte) ([]byte, error) {
	d.seen = append(d.seen, len(in))
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

// TestVerifyOnePieceRequests: mode afalg's engine glue through openssl enc (here OpenSSL's own code, the engine
// dropped) and a kernel driver wrong only on 8192-byte requests: the agent's own one-piece request of 8192 B
// catches it, naming the way it went; a driver right at every size is ok with every size above 4 KiB reached in
// one piece, both ways. On the shell path (no agent on the board) there are no such requests, and the sizes
// above 4 KiB are reported as reached in 4 KiB requests only.
func TestVerifyOnePieceRequests(t *testing.T) {
	needOpenSSL(t)
	glue, _ := filepath.Abs("testdata/verify/openssl-engine-passthrough")
	broken := &fakeCBCDriver{badSize: 8192}
	_, res := verifyWith(t, glue, protocol.ModeAFALG, "aes-128-cbc", broken.request)
	if want := "encrypt 8192 B in one request through af_alg skcipher cbc(aes): first difference in bytes 0–255"; res.Verdict != protocol.VerificationWrong || !strings.HasPrefix(res.Detail, want) {
		t.Errorf("driver wrong on 8192 B requests: %s %q, want wrong: %q…", res.Verdict, res.Detail, want)
	}
	if want := []int{8192, 16384, 65536, 8192, 16384, 65536}; !slices.Equal(broken.seen, want) {
		t.Errorf("the driver saw requests of %v, want %v (each size above 4 KiB in one piece, each way)", broken.seen, want)
	}

	right := &fakeCBCDriver{}
	r, res := verifyWith(t, glue, protocol.ModeAFALG, "aes-128-cbc", right.request)
	if res.Verdict != protocol.VerificationOK || res.Chunked[8192]+res.Chunked[16384]+res.Chunked[65536] != 0 {
		t.Errorf("driver right at every size: %s %q, chunked %v; want ok, 8192, 16384 and 65536 B whole", res.Verdict, res.Detail, res.Chunked)
	}
	// the same path without one-piece requests: what the shell path and vendor engines can do
	var enc []protocol.VerifyCase
	for _, c := range r.Cases {
		if c.Via == "" {
			enc = append(enc, c)
		}
	}
	res = verify.Judge(protocol.VerifyReport{Mode: protocol.ModeAFALG, Algorithm: "aes-128-cbc", Cases: enc})
	if want := map[int]int{4097: 4096, 8192: 4096, 16384: 4096, 65536: 4096}; res.Verdict != protocol.VerificationOK || !mapsEqual(res.Chunked, want) {
		t.Errorf("openssl enc alone: %s, chunked %v, want ok with %v", res.Verdict, res.Chunked, want)
	}
	shell := &sweepState{remote: struct{ Remote }{}}
	if cs := shell.directCases(nil, protocol.ModeAFALG, "aes-128-cbc", []int{8192}, false, 16, opensslEncChunk); len(cs) != 0 {
		t.Errorf("the shell path made %d one-piece requests, want none (the agent is not on the board)", len(cs))
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
