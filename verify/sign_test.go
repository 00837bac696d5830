package verify

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

var signAlgs = []string{"rsa1024", "rsa2048", "rsa3072", "rsa4096", "rsa7680", "ecdsap224", "ecdsap256", "ecdsap384", "ecdsap521", "ed25519", "ed448"}

// pathSignature is what a correct path signs for in: made here with Go's crypto from the key the controller sent
// (ECDSA with fresh randomness, as a board's would be), and the RFC's answer for Ed448.
func pathSignature(t *testing.T, alg string, in protocol.VerifySignInput) []byte {
	t.Helper()
	block, _ := pem.Decode([]byte(in.Key))
	if block == nil || block.Type != "PRIVATE KEY" {
		t.Fatalf("%s: key is not a PEM private key:\n%s", alg, in.Key)
	}
	msg, err := hex.DecodeString(in.Message)
	if err != nil {
		t.Fatal(err)
	}
	if alg == "ed448" {
		sig, _ := hex.DecodeString(ed448RFCSignature)
		return sig
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", alg, err)
	}
	var sig []byte
	switch k := k.(type) {
	case *rsa.PrivateKey:
		if got, want := k.N.BitLen(), map[string]int{"rsa1024": 1024, "rsa2048": 2048, "rsa3072": 3072, "rsa4096": 4096, "rsa7680": 7680}[alg]; got != want {
			t.Errorf("%s: a %d-bit key", alg, got)
		}
		sig, err = rsa.SignPKCS1v15(nil, k, crypto.Hash(0), msg)
	case *ecdsa.PrivateKey:
		if got, want := k.Curve.Params().Name, map[string]string{"ecdsap224": "P-224", "ecdsap256": "P-256", "ecdsap384": "P-384", "ecdsap521": "P-521"}[alg]; got != want {
			t.Errorf("%s: curve %s", alg, got)
		}
		sig, err = ecdsa.SignASN1(rand.Reader, k, msg)
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, msg)
	default:
		t.Fatalf("%s: key of type %T", alg, k)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func signReport(alg string, sig []byte, msgLen int, verify, reject string) protocol.VerifyReport {
	return protocol.VerifyReport{Mode: "cpu", Algorithm: alg, Cases: []protocol.VerifyCase{
		{Op: protocol.VerifyOpSign, Size: msgLen, OutLen: len(sig), Out: hex.EncodeToString(sig)},
		{Op: protocol.VerifyOpVerify, Size: msgLen, Answer: verify},
		{Op: protocol.VerifyOpReject, Size: msgLen, Answer: reject},
	}}
}

func TestJudgeSignature(t *testing.T) {
	inputs := SignInputs(append([]string{"aes-128-cbc", "sha256"}, signAlgs...))
	if len(inputs) != len(signAlgs) {
		t.Fatalf("SignInputs gave keys for %d algorithms, want the %d signature algorithms only", len(inputs), len(signAlgs))
	}
	for _, alg := range signAlgs {
		t.Run(alg, func(t *testing.T) {
			in := inputs[alg]
			sig := pathSignature(t, alg, in)
			n := len(in.Message) / 2
			if r := Judge(signReport(alg, sig, n, protocol.VerifyAccepted, protocol.VerifyRejected)); r.Verdict != protocol.VerificationOK {
				t.Fatalf("a correct signature check: %+v, want ok", r)
			}
			bad := append([]byte(nil), sig...)
			bad[len(bad)-1] ^= 1
			want := "first differing byte " // deterministic schemes: compared with the oracle's signature
			if strings.HasPrefix(alg, "ecdsa") {
				want = "does not verify with Go's crypto/ecdsa"
			}
			for _, tc := range []struct {
				name string
				r    protocol.VerifyReport
				want string
			}{
				{"corrupted signature", signReport(alg, bad, n, protocol.VerifyAccepted, protocol.VerifyRejected), "sign "},
				{"short signature", signReport(alg, sig[:len(sig)-1], n, protocol.VerifyAccepted, protocol.VerifyRejected), "sign "},
				{"own signature rejected", signReport(alg, sig, n, protocol.VerifyRejected, protocol.VerifyRejected), "verify "},
				{"changed message accepted", signReport(alg, sig, n, protocol.VerifyAccepted, protocol.VerifyAccepted), "reject "},
				{"verify failed", func() protocol.VerifyReport {
					r := signReport(alg, sig, n, "", protocol.VerifyRejected)
					r.Cases[1].Err = "exit 139: "
					return r
				}(), "verify "},
			} {
				r := Judge(tc.r)
				if r.Verdict != protocol.VerificationWrong || !strings.HasPrefix(r.Detail, tc.want) {
					t.Errorf("%s: %+v, want wrong starting %q", tc.name, r, tc.want)
				}
				if tc.name == "corrupted signature" && !strings.Contains(r.Detail, want) {
					t.Errorf("%s: detail %q, want %q", tc.name, r.Detail, want)
				}
			}
			missing := signReport(alg, sig, n, protocol.VerifyAccepted, protocol.VerifyRejected)
			missing.Cases = missing.Cases[:2]
			if r := Judge(missing); r.Verdict != protocol.VerificationUnknown || !strings.Contains(r.Detail, "no reject case") {
				t.Errorf("without the reject case: %+v, want unknown", r)
			}
		})
	}
	for alg, want := range map[string]string{
		"rsa512":    "refuses keys under 1024 bits",
		"rsa15360":  "no 15360-bit RSA test key",
		"ecdsak233": "has no curve nistk233",
		"ecdh256":   "no signature check",
	} {
		r := Judge(protocol.VerifyReport{Mode: "cpu", Algorithm: alg, Unknown: "the controller sent no key for the signature check of " + alg})
		if IsSignature(alg) && (r.Verdict != protocol.VerificationUnknown || !strings.Contains(r.Detail, want)) {
			t.Errorf("%s: %+v, want unknown with %q", alg, r, want)
		}
		if _, ok := SignInputs([]string{alg})[alg]; ok {
			t.Errorf("SignInputs sends a key for %s", alg)
		}
	}
}

// TestSignInputsFixed: the inputs are the same every time (the judge rebuilds them to check what the agent saw),
// and the Ed448 key is the RFC's.
func TestSignInputsFixed(t *testing.T) {
	a, b := SignInputs(signAlgs), SignInputs(signAlgs)
	for _, alg := range signAlgs {
		if a[alg] != b[alg] {
			t.Errorf("%s: two calls gave different inputs", alg)
		}
	}
	block, _ := pem.Decode([]byte(a["ed448"].Key))
	if block == nil || !strings.HasSuffix(hex.EncodeToString(block.Bytes), ed448RFCSecret) || a["ed448"].Message != "03" {
		t.Errorf("ed448 input is not RFC 8032's 1-octet test: %+v", a["ed448"])
	}
}
