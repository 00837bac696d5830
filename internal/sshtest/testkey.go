package sshtest

import (
	"crypto"
	"testing"

	"golang.org/x/crypto/ssh"
)

// A fixed throwaway ed25519 key and the same key encrypted with the passphrase "secret". Encrypting a key at
// test time costs seconds of bcrypt (more under -race), hence these constants. Never use them for anything real.
const (
	testKeyPEM = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz
c2gtZWQyNTUxOQAAACBqfK6Y9rOC2KdVZYiEDtVwB5YPGHPkXC2KH9/nmvzyfwAA
AJDw6f638On+twAAAAtzc2gtZWQyNTUxOQAAACBqfK6Y9rOC2KdVZYiEDtVwB5YP
GHPkXC2KH9/nmvzyfwAAAEAT0K7m8dM1R2e/tWkySP1hqeGZ+/JufatpQU3e+ouU
K2p8rpj2s4LYp1VliIQO1XAHlg8Yc+RcLYof3+ea/PJ/AAAAB3NzaHRlc3QBAgME
BQY=
-----END OPENSSH PRIVATE KEY-----
`
	encryptedTestKeyPEM = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABD+
ivHTZJrpsL8JXa7SKNe0AAAAEAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIGp8
rpj2s4LYp1VliIQO1XAHlg8Yc+RcLYof3+ea/PJ/AAAAkFLTaFXZYWuQLHYa2X9S
Y80qETlbas6s8V0lQS5k7Txj/1T88ottqpagTPsVGJjkELzrQUTcGP1PIzjvDaW+
cuS7JvPeTYIemFpIaJEav2jnsVpinbyEB/BFeewf3W1gc5Duuwc5BenF0CziF1pS
RW7SX0MMCBrGyDn9LtBdixNuPD/E1QUJR0GglZq/EBDevg==
-----END OPENSSH PRIVATE KEY-----
`
)

// EncryptedKey returns a fixed client key and its OpenSSH private key file encrypted with the passphrase
// "secret", for tests of what happens with a passphrase-protected identity.
func EncryptedKey(t testing.TB) (crypto.Signer, []byte) {
	t.Helper()
	k, err := ssh.ParseRawPrivateKey([]byte(testKeyPEM))
	if err != nil {
		t.Fatalf("sshtest: parse test key: %v", err)
	}
	return k.(crypto.Signer), []byte(encryptedTestKeyPEM)
}
