package agent

import (
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// verifySignature runs the signature check of one openssl mode and rsa, ecdsa or eddsa algorithm with the key
// and message the controller sent: `openssl pkeyutl -sign` through the path `openssl speed` measures (same binary,
// -engine or -provider, environment), then `pkeyutl -verify` of that signature against the message and against
// the message with its first byte changed. pkeyutl signs the message as given, as `openssl speed` signs its
// buffer: RSA with PKCS#1 v1.5 padding and no DigestInfo, ECDSA as the digest, EdDSA (-rawin) as the message.
// A path that cannot sign (no EdDSA before OpenSSL 1.1.1, an engine that did not load, a key it refuses) is
// unknown, with why; the controller decides whether a signature is right.
func (s *sweepState) verifySignature(ctx context.Context, openssl string, v opensslVersion, mode, alg string) protocol.VerifyReport {
	a, _, _, _ := opensslspeed.AsymName(alg)
	in, ok := s.plan.VerifySign[alg]
	if !ok {
		return protocol.VerifyReport{Unknown: "the controller sent no key for the signature check of " + alg}
	}
	msg, err := hex.DecodeString(in.Message)
	if err != nil || len(msg) == 0 || !strings.HasPrefix(in.Key, "-----BEGIN PRIVATE KEY-----\n") {
		return protocol.VerifyReport{Unknown: "the controller's key or message for " + alg + " is not a PEM private key and a hex message"}
	}
	if a == "eddsa" && !v.atLeast(1, 1, 1) {
		return protocol.VerifyReport{Unknown: fmt.Sprintf("openssl %d.%d.%d has no EdDSA (OpenSSL 1.1.1 and later)", v.Major, v.Minor, v.Patch)}
	}
	o, cleanup, unknown := s.newOpenSSLVerifier(ctx, mode, v, openssl, alg)
	if unknown != "" {
		return protocol.VerifyReport{Unknown: unknown}
	}
	host, dir := o.host, o.dir
	names := []string{"key.pem", "msg", "msg-changed", "sig"}
	defer func() { cleanup(names...) }()
	changed := append([]byte(nil), msg...)
	changed[0] ^= 0x01
	for i, b := range [][]byte{[]byte(in.Key), msg, changed} {
		if err := host.writeFile(filepath.Join(dir, names[i]), b); err != nil {
			return protocol.VerifyReport{Unknown: fmt.Sprintf("write the signature check's input: %v", err)}
		}
	}
	r := protocol.VerifyReport{Path: strings.TrimSpace(strings.Join(append(append(o.env, "openssl", "pkeyutl"), o.opts...), " "))}
	key, sig := filepath.Join(dir, "key.pem"), filepath.Join(dir, "sig")
	pkeyutl := func(op, file string) []string {
		argv := []string{o.argv0, "pkeyutl", op, "-inkey", key, "-in", file}
		if a == "eddsa" {
			argv = append(argv, "-rawin")
		}
		if op == "-sign" {
			argv = append(argv, "-out", sig)
		} else {
			argv = append(argv, "-sigfile", sig)
		}
		return append(argv, o.opts...)
	}

	res := o.run(ctx, pkeyutl("-sign", filepath.Join(dir, "msg")), "")
	if why := o.failed(res); why != "" {
		return protocol.VerifyReport{Path: r.Path, Unknown: "openssl pkeyutl -sign: " + why}
	}
	b, err := o.host.readFile(sig, maxSignatureBytes)
	if err != nil || len(b) == 0 {
		return protocol.VerifyReport{Path: r.Path, Unknown: fmt.Sprintf("openssl pkeyutl -sign wrote no signature (%v)", err)}
	}
	c := newVerifyCase(protocol.VerifyOpSign, len(msg), b)
	r.Cases = append(r.Cases, c)

	checks := [][]string{pkeyutl("-verify", filepath.Join(dir, "msg")), pkeyutl("-verify", filepath.Join(dir, "msg-changed"))}
	for i, res := range o.runAll(ctx, checks) {
		c := protocol.VerifyCase{Op: protocol.VerifyOpVerify, Size: len(msg)}
		if i == 1 {
			c.Op = protocol.VerifyOpReject
		}
		switch answer := parseVerifyAnswer(res.Stdout+"\n"+res.Stderr, res.Exit, res.Err); {
		case answer != "":
			c.Answer = answer
		case o.failed(res) != "":
			c.Err = o.failed(res)
		default:
			c.Err = "openssl pkeyutl -verify printed neither \"Signature Verified Successfully\" nor \"Signature Verification Failure\""
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}

// parseVerifyAnswer reads what `openssl pkeyutl -verify` said of a signature: VerifyAccepted for "Signature
// Verified Successfully" with exit 0, VerifyRejected for "Signature Verification Failure" with exit 1 (every
// OpenSSL since 1.0.0 prints these), "" for anything else (an error, a crash, both lines, a wrapper's noise).
func parseVerifyAnswer(out string, exit int, runErr error) string {
	if runErr != nil {
		return ""
	}
	ok := strings.Contains(out, "Signature Verified Successfully")
	bad := strings.Contains(out, "Signature Verification Failure")
	switch {
	case ok && !bad && exit == 0:
		return protocol.VerifyAccepted
	case bad && !ok && exit == 1:
		return protocol.VerifyRejected
	}
	return ""
}
