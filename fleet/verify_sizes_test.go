package fleet

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// cbcCase is the right output of the verification's AES-128-CBC input of n bytes, as the agent reports it,
// reached in requests of req bytes (via: one piece through the agent's own request).
func cbcCase(t *testing.T, n, req int, via string, corrupt bool) protocol.VerifyCase {
	t.Helper()
	b, err := aes.NewCipher(protocol.VerifyPattern(16, protocol.VerifySeedKey))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, n)
	cipher.NewCBCEncrypter(b, protocol.VerifyPattern(16, protocol.VerifySeedIV)).CryptBlocks(out, protocol.VerifyPattern(n, protocol.VerifySeedPayload))
	if corrupt {
		out[0] ^= 1
	}
	c := protocol.VerifyCase{Op: "encrypt", Size: n, OutLen: n, Request: req, Via: via}
	if n <= protocol.VerifyFullBytes {
		c.Out = hex.EncodeToString(out)
		return c
	}
	for i := 0; i < n; i += protocol.VerifyChunkBytes {
		sum := sha256.Sum256(out[i:min(i+protocol.VerifyChunkBytes, n)])
		c.Chunks = append(c.Chunks, hex.EncodeToString(sum[:8]))
	}
	return c
}

// TestVerifySizesReachedInChunks: the points of an accelerated mode whose block size reached the path only in
// openssl enc's 4 KiB requests (the shell path, a vendor engine) are unknown, naming the size and the request;
// its smaller sizes are ok, and so are soft's and cpu's at every size (OpenSSL's own code). With the size in one
// request of the agent's own the point is ok, and a wrong one-piece output fails the board as a wrong output.
func TestVerifySizesReachedInChunks(t *testing.T) {
	chunked := []protocol.VerifyCase{cbcCase(t, 16, 16, "", false), cbcCase(t, 8192, 4096, "", false)}
	rec := &recorder{verifying: true}
	for _, mode := range []string{protocol.ModeAFALG, protocol.ModeCPU} {
		if res := rec.verified(protocol.VerifyReport{Mode: mode, Algorithm: "aes-128-cbc", Cases: chunked}); res.Verdict != protocol.VerificationOK {
			t.Fatalf("%s: %s %q, want ok", mode, res.Verdict, res.Detail)
		}
	}
	for _, tc := range []struct {
		mode string
		size int
		want string
	}{
		{protocol.ModeAFALG, 16, protocol.VerificationOK},
		{protocol.ModeAFALG, 8192, protocol.VerificationUnknown},
		{protocol.ModeCPU, 8192, protocol.VerificationOK},
	} {
		p := protocol.Point{Mode: tc.mode, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: tc.size}
		rec.markVerification(&p)
		if p.Verification != tc.want {
			t.Errorf("%s %d B: %s %q, want %s", tc.mode, tc.size, p.Verification, p.VerificationDetail, tc.want)
		}
		if tc.want == protocol.VerificationUnknown && !strings.Contains(p.VerificationDetail, "8192 B inputs reached the path only in requests of 4096 B") {
			t.Errorf("%s %d B: detail %q does not name the size and the request", tc.mode, tc.size, p.VerificationDetail)
		}
	}

	whole := &recorder{verifying: true}
	whole.verified(protocol.VerifyReport{Mode: protocol.ModeDevCrypto, Algorithm: "aes-128-cbc",
		Cases: append(chunked, cbcCase(t, 8192, 8192, "/dev/crypto aes-128-cbc", false))})
	p := protocol.Point{Mode: protocol.ModeDevCrypto, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 8192}
	if whole.markVerification(&p); p.Verification != protocol.VerificationOK {
		t.Errorf("8192 B in one request: %s %q, want ok", p.Verification, p.VerificationDetail)
	}
	if err := whole.wrongOutput(); err != nil {
		t.Errorf("right at every size: %v", err)
	}

	bad := &recorder{verifying: true}
	bad.verified(protocol.VerifyReport{Mode: protocol.ModeDevCrypto, Algorithm: "aes-128-cbc",
		Cases: append(chunked, cbcCase(t, 8192, 8192, "/dev/crypto aes-128-cbc", true))})
	err := bad.wrongOutput()
	if !errors.Is(err, ErrWrongOutput) || !strings.Contains(err.Error(), "devcrypto aes-128-cbc: encrypt 8192 B in one request through /dev/crypto aes-128-cbc: ") {
		t.Errorf("wrong on its 8192 B request: %v, want a wrong output naming mode, size and the request", err)
	}
}
