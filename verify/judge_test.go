package verify

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// outputCase is what a correct path reports for c: the output whole when short, chunk digests when long.
func outputCase(t *testing.T, alg string, c protocol.VerifyCase) protocol.VerifyCase {
	t.Helper()
	out, err := Expected(alg, c)
	if err != nil {
		t.Fatalf("Expected(%s, %+v): %v", alg, c, err)
	}
	return withOutput(c, out)
}

func withOutput(c protocol.VerifyCase, out []byte) protocol.VerifyCase {
	c.OutLen, c.Out, c.Chunks = len(out), "", nil
	if len(out) <= protocol.VerifyFullBytes {
		c.Out = hex.EncodeToString(out)
		return c
	}
	for i := 0; i < len(out); i += protocol.VerifyChunkBytes {
		sum := sha256.Sum256(out[i:min(i+protocol.VerifyChunkBytes, len(out))])
		c.Chunks = append(c.Chunks, hex.EncodeToString(sum[:8]))
	}
	return c
}

// TestExpectedAgainstKnownAnswer pins the oracle to an answer computed independently of it: AES-128-CBC of the
// 64-byte pattern, by the standard library used directly, equals the kcapi known answer the agent has carried
// since before verification existed (its kcapi_kat.go, same pattern, key and IV).
func TestExpectedAgainstKnownAnswer(t *testing.T) {
	got, err := Expected("aes-128-cbc", protocol.VerifyCase{Op: "encrypt", Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	const want = "2dc71247bd910a685adb7a56d64154907931f8b0954c2fe22f643ccb94d8faa9c64599afbea8e67e3343602a830af95d9b267c91acfb4007fa1c37149bada97d"
	if hex.EncodeToString(got) != want {
		t.Errorf("aes-128-cbc encrypt 64 B = %x, want %s", got, want)
	}
	// padding: 17 bytes become 32, and the second block is the pad of 15 bytes of 0x0f
	block, _ := aes.NewCipher(protocol.VerifyPattern(16, protocol.VerifySeedKey))
	in := append(protocol.VerifyPattern(17, protocol.VerifySeedPayload), strings.Repeat("\x0f", 15)...)
	want17 := make([]byte, 32)
	cipher.NewCBCEncrypter(block, protocol.VerifyPattern(16, protocol.VerifySeedIV)).CryptBlocks(want17, in)
	got17, err := Expected("aes-128-cbc", protocol.VerifyCase{Op: "encrypt", Size: 17, Padded: true})
	if err != nil || hex.EncodeToString(got17) != hex.EncodeToString(want17) {
		t.Errorf("padded 17 B = %x (%v), want %x", got17, err, want17)
	}
}

func TestJudge(t *testing.T) {
	alg := "aes-128-cbc"
	good := []protocol.VerifyCase{
		outputCase(t, alg, protocol.VerifyCase{Op: "encrypt", Size: 16}),
		outputCase(t, alg, protocol.VerifyCase{Op: "encrypt", Size: 17, Padded: true}),
		outputCase(t, alg, protocol.VerifyCase{Op: "decrypt", Size: 4096}),
		outputCase(t, alg, protocol.VerifyCase{Op: "encrypt", Size: 65536}),
	}
	if r := Judge(protocol.VerifyReport{Mode: "afalg", Algorithm: alg, Cases: good}); r.Verdict != protocol.VerificationOK {
		t.Fatalf("correct outputs: %+v, want ok", r)
	}
	flip := func(c protocol.VerifyCase, at int) protocol.VerifyCase {
		out, _ := Expected(alg, c)
		out[at] ^= 1
		return withOutput(c, out)
	}
	for _, tc := range []struct {
		name string
		c    protocol.VerifyCase
		want string
	}{
		{"last byte of a decryption", flip(protocol.VerifyCase{Op: "decrypt", Size: 4096}, 4095), "decrypt 4096 B: first differing byte 4095"},
		{"a byte of a long output", flip(protocol.VerifyCase{Op: "encrypt", Size: 65536}, 9000), "encrypt 65536 B: first difference in bytes 8960–9215"},
		{"short output", protocol.VerifyCase{Op: "encrypt", Size: 32, OutLen: 16, Out: strings.Repeat("00", 16)}, "encrypt 32 B: 16 bytes of output, want 32"},
		{"failing path", protocol.VerifyCase{Op: "encrypt", Size: 1, Padded: true, Err: "exit 1: bad decrypt"}, "encrypt 1 B padded: the path failed: exit 1"},
		{"odd offset", func() protocol.VerifyCase {
			c := flip(protocol.VerifyCase{Op: "encrypt", Size: 16}, 0)
			c.Offset = 1
			return c
		}(), "encrypt 16 B at offset 1: first differing byte 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Judge(protocol.VerifyReport{Mode: "afalg", Algorithm: alg, Cases: append(append([]protocol.VerifyCase{}, good...), tc.c)})
			if r.Verdict != protocol.VerificationWrong || !strings.HasPrefix(r.Detail, tc.want) || r.Size != tc.c.Size {
				t.Errorf("Judge = %+v, want wrong starting %q, size %d", r, tc.want, tc.c.Size)
			}
		})
	}
	for _, tc := range []struct {
		name string
		r    protocol.VerifyReport
		want string
	}{
		{"agent says unknown", protocol.VerifyReport{Algorithm: "aes-128-gcm", Unknown: "openssl enc cannot run AEAD ciphers"}, "openssl enc cannot"},
		{"no oracle", protocol.VerifyReport{Algorithm: "camellia-128-cbc", Cases: []protocol.VerifyCase{{Op: "encrypt", Size: 16}}}, "encrypt 16 B: no oracle for camellia-128-cbc"},
		{"no cases", protocol.VerifyReport{Algorithm: alg}, "no verification outputs"},
	} {
		if r := Judge(tc.r); r.Verdict != protocol.VerificationUnknown || !strings.Contains(r.Detail, tc.want) {
			t.Errorf("%s: %+v, want unknown with %q", tc.name, r, tc.want)
		}
	}
}

func TestJudgeDigestsAndGCM(t *testing.T) {
	for _, alg := range []string{"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3-256", "sha3-512"} {
		c := outputCase(t, alg, protocol.VerifyCase{Op: "digest", Size: 4097})
		if r := Judge(protocol.VerifyReport{Algorithm: alg, Cases: []protocol.VerifyCase{c}}); r.Verdict != protocol.VerificationOK {
			t.Errorf("%s: %+v", alg, r)
		}
	}
	seal := outputCase(t, "aes-128-gcm", protocol.VerifyCase{Op: "encrypt", Size: 15})
	open := outputCase(t, "aes-128-gcm", protocol.VerifyCase{Op: "open", Size: 15})
	if seal.OutLen != 31 || open.Out != hex.EncodeToString(protocol.VerifyPattern(15, protocol.VerifySeedPayload)) {
		t.Errorf("gcm: sealed %d bytes, opened %q", seal.OutLen, open.Out)
	}
}

func TestJudgeConcurrency(t *testing.T) {
	alg := "sha256"
	cases := []protocol.VerifyCase{outputCase(t, alg, protocol.VerifyCase{Op: "digest", Size: 16})}
	want, _ := Expected(alg, protocol.VerifyCase{Op: "digest", Size: 16384})
	good := sha256.Sum256(want)
	bad := sha256.Sum256([]byte("wrong"))
	for _, tc := range []struct {
		name string
		c    protocol.VerifyConcurrency
		want string // "" ok
	}{
		{"all right", protocol.VerifyConcurrency{Workers: 4, Seconds: 2, Op: "digest", Size: 16384, Ops: 100, Outputs: map[string]int{hex.EncodeToString(good[:]): 100}}, ""},
		{"some wrong", protocol.VerifyConcurrency{Workers: 4, Seconds: 2, Op: "digest", Size: 16384, Ops: 100, Outputs: map[string]int{hex.EncodeToString(good[:]): 97, hex.EncodeToString(bad[:]): 3}}, "3 of 100 outputs of digest 16384 B wrong"},
		{"hung", protocol.VerifyConcurrency{Workers: 4, Seconds: 2, Op: "digest", Size: 16384, TimedOut: true}, "hung"},
		{"errors", protocol.VerifyConcurrency{Workers: 4, Seconds: 2, Op: "digest", Size: 16384, Ops: 3, Errors: []string{"worker 2: exit 139"}}, "worker 2: exit 139"},
	} {
		c := tc.c
		r := Judge(protocol.VerifyReport{Mode: "devcrypto", Algorithm: alg, Cases: cases, Concurrency: &c})
		switch {
		case tc.want == "" && r.Verdict != protocol.VerificationOK:
			t.Errorf("%s: %+v, want ok", tc.name, r)
		case tc.want != "" && (r.Verdict != protocol.VerificationWrong || !strings.Contains(r.Detail, tc.want) || !strings.HasPrefix(r.Detail, "concurrency (4 workers, 2 s)")):
			t.Errorf("%s: %+v, want wrong with %q", tc.name, r, tc.want)
		}
	}
}

// TestJudgeConcurrencyPadded: a concurrency check whose size fills no whole block (4097 B, the largest size up to
// 16 KiB of a sweep of 4096-byte blocks, with the edge sizes) ran padded, and is judged against the padded
// oracle: its right outputs are ok, a wrong one is wrong (it was passed as ok when the oracle was asked for an
// unpadded 4097 B, which it has none of).
func TestJudgeConcurrencyPadded(t *testing.T) {
	alg := "aes-128-cbc"
	cases := []protocol.VerifyCase{outputCase(t, alg, protocol.VerifyCase{Op: "encrypt", Size: 16})}
	want, err := Expected(alg, protocol.VerifyCase{Op: "encrypt", Size: 4097, Padded: true})
	if err != nil {
		t.Fatal(err)
	}
	good, bad := sha256.Sum256(want), sha256.Sum256([]byte("wrong"))
	for _, tc := range []struct {
		outputs map[string]int
		verdict string
	}{
		{map[string]int{hex.EncodeToString(good[:]): 10}, protocol.VerificationOK},
		{map[string]int{hex.EncodeToString(good[:]): 9, hex.EncodeToString(bad[:]): 1}, protocol.VerificationWrong},
	} {
		c := protocol.VerifyConcurrency{Workers: 2, Seconds: 2, Op: "encrypt", Size: 4097, Ops: 10, Outputs: tc.outputs}
		if r := Judge(protocol.VerifyReport{Mode: "afalg", Algorithm: alg, Cases: cases, Concurrency: &c}); r.Verdict != tc.verdict {
			t.Errorf("outputs %v: %s %q, want %s", tc.outputs, r.Verdict, r.Detail, tc.verdict)
		}
	}
}
