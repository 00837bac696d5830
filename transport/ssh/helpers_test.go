package ssh

import (
	"crypto"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshtest"
	"golang.org/x/crypto/ssh"
)

func clientPublicKey(t *testing.T, srv *sshtest.Server) []ssh.PublicKey {
	t.Helper()
	pub, err := ssh.NewPublicKey(srv.ClientKey().Public())
	if err != nil {
		t.Fatal(err)
	}
	return []ssh.PublicKey{pub}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Errorf("timed out waiting for: %s", what)
}

// writeEncryptedKey writes sshtest's passphrase-protected key file to path and returns the key.
func writeEncryptedKey(t *testing.T, path string) crypto.Signer {
	t.Helper()
	key, data := sshtest.EncryptedKey(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return key
}
