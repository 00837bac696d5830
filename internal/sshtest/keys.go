package sshtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// NewKey generates a private key of type "ed25519", "ecdsa" (P-256) or "rsa" (2048 bits).
func NewKey(t testing.TB, typ string) crypto.Signer {
	t.Helper()
	var (
		k   crypto.Signer
		err error
	)
	switch typ {
	case "ed25519":
		_, k, err = ed25519.GenerateKey(rand.Reader)
	case "ecdsa":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "rsa":
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		t.Fatalf("sshtest: unknown key type %q", typ)
	}
	if err != nil {
		t.Fatalf("sshtest: generate %s key: %v", typ, err)
	}
	return k
}

// NewSigner generates a key of type typ (see NewKey) as an ssh.Signer, e.g. for a host key.
func NewSigner(t testing.TB, typ string) ssh.Signer {
	t.Helper()
	s, err := ssh.NewSignerFromKey(NewKey(t, typ))
	if err != nil {
		t.Fatalf("sshtest: signer: %v", err)
	}
	return s
}

// WriteIdentity writes key to path (mode 0600) in OpenSSH format, encrypted when passphrase is not empty.
func WriteIdentity(t testing.TB, path string, key crypto.PrivateKey, passphrase string) {
	t.Helper()
	var (
		block *pem.Block
		err   error
	)
	if passphrase == "" {
		block, err = ssh.MarshalPrivateKey(key, "sshtest")
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(key, "sshtest", []byte(passphrase))
	}
	if err != nil {
		t.Fatalf("sshtest: marshal identity: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
}

// KnownHostsLine is the known_hosts line for addr (host:port) and key, in the form OpenSSH writes.
func KnownHostsLine(addr string, key ssh.PublicKey) string {
	return knownhosts.Line([]string{addr}, key)
}

// AppendKnownHosts appends a line per key for addr to the known_hosts file at path, creating it.
func AppendKnownHosts(t testing.TB, path, addr string, keys ...ssh.PublicKey) {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(KnownHostsLine(addr, k) + "\n")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
}
