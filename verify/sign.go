package verify

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// The signature check: the controller sends a fixed key and message per algorithm (SignInputs); the judge checks
// the path's signature with Go's crypto and the same key. RSA PKCS#1 v1.5 and EdDSA signatures are deterministic,
// so they are compared byte by byte with the oracle's (the first differing byte is named); ECDSA's are not, so
// they are verified with crypto/ecdsa. Go has no Ed448: its oracle is the known answer of RFC 8032 section 7.4
// ("1 octet"), with that test's key and message, not one computed by an OpenSSL.

// signMessageBytes is the message's length: RSA and ECDSA sign it as the digest `openssl speed` signs (RSA with
// PKCS#1 v1.5 padding and no DigestInfo, ECDSA truncated to the curve), EdDSA as the message.
const signMessageBytes = 32

// The RFC 8032 section 7.4 "1 octet" Ed448 test: secret key, message and signature.
const (
	ed448RFCSecret    = "c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e"
	ed448RFCMessage   = "03"
	ed448RFCSignature = "26b8f91727bd62897af15e41eb43c377efb9c610d48f2335cb0bd0087810f4352541b143c4b981b7e18f62de8ccdf633fc1bf037ab7cd779805e0dbcc0aae1cbcee1afb2e027df36bc04dcecbf154336c19f0af7e0a6472905e799f1953d2a0ff3348ab21aa4adafd1d234441cf807c03a00"
	// ed448PKCS8Prefix is the DER of a PKCS#8 Ed448 private key (RFC 8410) up to its 57-byte secret.
	ed448PKCS8Prefix = "3047020100300506032b6571043b0439"
)

// signKey is one algorithm's check: the key, the message and how a correct signature is recognised.
type signKey struct {
	pkcs8   []byte
	message []byte
	check   func(sig []byte) string // "" when sig is a correct signature of message, else what is wrong
}

// IsSignature reports whether alg (a plan name: rsa2048, ecdsap256, ed25519) is one the signature check covers.
func IsSignature(alg string) bool {
	a, _, _, ok := opensslspeed.AsymName(alg)
	return ok && (a == "rsa" || a == "ecdsa" || a == "eddsa")
}

// SignInputs are the inputs of the signature checks of algs, for Plan.VerifySign: the algorithms with a key.
func SignInputs(algs []string) map[string]protocol.VerifySignInput {
	var m map[string]protocol.VerifySignInput
	for _, alg := range algs {
		k, err := newSignKey(alg)
		if err != nil {
			continue
		}
		if m == nil {
			m = map[string]protocol.VerifySignInput{}
		}
		m[alg] = protocol.VerifySignInput{
			Key:     string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: k.pkcs8})),
			Message: hex.EncodeToString(k.message),
		}
	}
	return m
}

// newSignKey builds alg's key, message and check, or says why there is none.
func newSignKey(alg string) (signKey, error) {
	a, bits, curve, ok := opensslspeed.AsymName(alg)
	if !ok || a != "rsa" && a != "ecdsa" && a != "eddsa" {
		return signKey{}, fmt.Errorf("no signature check for %s (rsa, ecdsa and eddsa have one)", alg)
	}
	msg := protocol.VerifyPattern(signMessageBytes, protocol.VerifySeedPayload)
	switch a {
	case "rsa":
		block, _ := pem.Decode([]byte(rsaKeys[bits]))
		if block == nil {
			return signKey{}, fmt.Errorf("no %d-bit RSA test key (there are 1024, 2048, 3072, 4096 and 7680; Go's crypto/rsa refuses keys under 1024 bits)", bits)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return signKey{}, fmt.Errorf("rsa test key %d: %w", bits, err)
		}
		priv := k.(*rsa.PrivateKey)
		want, err := rsa.SignPKCS1v15(nil, priv, crypto.Hash(0), msg)
		if err != nil {
			return signKey{}, fmt.Errorf("oracle %s: %w", alg, err)
		}
		return signKey{pkcs8: block.Bytes, message: msg, check: sameBytes(want)}, nil
	case "ecdsa":
		c := map[string]elliptic.Curve{"nistp224": elliptic.P224(), "nistp256": elliptic.P256(), "nistp384": elliptic.P384(), "nistp521": elliptic.P521()}[curve]
		if c == nil {
			return signKey{}, fmt.Errorf("Go's crypto/ecdsa has no curve %s (it has nistp224, nistp256, nistp384 and nistp521)", curve)
		}
		// the pattern as the scalar, its top byte cleared to keep it below the curve's order
		d := protocol.VerifyPattern((c.Params().BitSize+7)/8, protocol.VerifySeedKey)
		d[0] &= 0x01
		priv, err := ecdsa.ParseRawPrivateKey(c, d)
		if err != nil {
			return signKey{}, fmt.Errorf("ecdsa test key %s: %w", curve, err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return signKey{}, err
		}
		return signKey{pkcs8: der, message: msg, check: func(sig []byte) string {
			if !ecdsa.VerifyASN1(&priv.PublicKey, msg, sig) {
				return fmt.Sprintf("the %d-byte signature does not verify with Go's crypto/ecdsa and the key sent", len(sig))
			}
			return ""
		}}, nil
	}
	switch curve {
	case "ed25519":
		priv := ed25519.NewKeyFromSeed(protocol.VerifyPattern(ed25519.SeedSize, protocol.VerifySeedKey))
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return signKey{}, err
		}
		return signKey{pkcs8: der, message: msg, check: sameBytes(ed25519.Sign(priv, msg))}, nil
	case "ed448":
		der, _ := hex.DecodeString(ed448PKCS8Prefix + ed448RFCSecret)
		m, _ := hex.DecodeString(ed448RFCMessage)
		want, _ := hex.DecodeString(ed448RFCSignature)
		return signKey{pkcs8: der, message: m, check: sameBytes(want)}, nil
	}
	return signKey{}, fmt.Errorf("no signature check for %s", alg)
}

// sameBytes checks a deterministic signature against the oracle's.
func sameBytes(want []byte) func([]byte) string {
	return func(got []byte) string {
		if len(got) != len(want) {
			return fmt.Sprintf("a %d-byte signature, want %d bytes", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				return fmt.Sprintf("first differing byte %d of the signature: 0x%02x, want 0x%02x", i, got[i], want[i])
			}
		}
		return ""
	}
}

// judgeSign says what is wrong with one case of the signature check, "" when nothing is.
func judgeSign(k signKey, c protocol.VerifyCase) string {
	if c.Err != "" {
		return "the path failed: " + c.Err
	}
	switch c.Op {
	case protocol.VerifyOpSign:
		sig, err := hex.DecodeString(c.Out)
		if err != nil || len(sig) != c.OutLen || c.OutLen == 0 {
			return "the signature is not the hex of its length"
		}
		return k.check(sig)
	case protocol.VerifyOpVerify:
		if c.Answer != protocol.VerifyAccepted {
			return "the path rejected its own signature of the message"
		}
	case protocol.VerifyOpReject:
		if c.Answer != protocol.VerifyRejected {
			return "the path accepted its signature for the message with its first byte changed"
		}
	default:
		return "a signature check has no " + c.Op
	}
	return ""
}

// missingSignOps says which of sign, verify and reject a signature check lacks, "" when it has all three: a path
// is ok only when it signed right, accepted its signature and rejected it for another message.
func missingSignOps(cases []protocol.VerifyCase) string {
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.Op] = true
	}
	for _, op := range []string{protocol.VerifyOpSign, protocol.VerifyOpVerify, protocol.VerifyOpReject} {
		if !seen[op] {
			return "the signature check has no " + op + " case"
		}
	}
	return ""
}
