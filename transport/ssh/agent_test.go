package ssh

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/fleetlab/fleet/internal/sshtest"
	"github.com/fleetlab/fleet/transport"
	"golang.org/x/crypto/ssh/agent"
)

// startAgent serves an in-process ssh-agent holding keys on a socket in a temp directory.
func startAgent(t *testing.T, keys ...any) string {
	t.Helper()
	keyring := agent.NewKeyring()
	for _, k := range keys {
		if err := keyring.Add(agent.AddedKey{PrivateKey: k}); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				agent.ServeAgent(keyring, c)
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return sock
}

func TestSSHAgent(t *testing.T) {
	key, _ := sshtest.EncryptedKey(t)
	srv := sshtest.Start(t, sshtest.Options{ClientKey: key})
	tests := []struct {
		name      string
		identity  string // "", "encrypted" or "other"
		agentKeys []any
		wantErr   error
	}{
		{name: "agent only", agentKeys: []any{srv.ClientKey()}},
		{name: "encrypted identity held by the agent", identity: "encrypted", agentKeys: []any{srv.ClientKey()}},
		{name: "explicit identity refused, agent key accepted", identity: "other", agentKeys: []any{srv.ClientKey()}},
		{name: "agent with the wrong key", agentKeys: []any{sshtest.NewKey(t, "ed25519")}, wantErr: transport.ErrAuthFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := testSSHOptions(t)
			opts.AgentSocket = startAgent(t, tc.agentKeys...)
			b := testBoard(t, srv)
			b.IdentityFile = ""
			switch tc.identity {
			case "encrypted":
				b.IdentityFile = filepath.Join(opts.Home, "enc")
				writeEncryptedKey(t, b.IdentityFile)
			case "other":
				b.IdentityFile = filepath.Join(opts.Home, "other")
				sshtest.WriteIdentity(t, b.IdentityFile, sshtest.NewKey(t, "ed25519"), "")
			}
			tr, err := Dial(context.Background(), b, opts)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("Dial = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tr.Close()
		})
	}
}

func TestSSHAgentFromEnvironment(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	t.Setenv("SSH_AUTH_SOCK", startAgent(t, srv.ClientKey()))
	opts := testSSHOptions(t)
	opts.AgentSocket = ""
	b := testBoard(t, srv)
	b.IdentityFile = ""
	if _, err := os.Stat(filepath.Join(opts.Home, ".ssh", "id_ed25519")); err == nil {
		t.Fatal("home has a default identity")
	}
	dialTest(t, b, opts)
}
