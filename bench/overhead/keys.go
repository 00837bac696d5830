package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
)

// keys are shared by every simulated board: one host key, one client key.
type keys struct {
	host     ssh.Signer
	identity string // the client's private key file
	client   ssh.PublicKey
}

func newKeys(dir string) (*keys, error) {
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	host, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		return nil, err
	}
	clientPub, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	if err != nil {
		return nil, err
	}
	k := &keys{host: host, identity: filepath.Join(dir, "id_ed25519")}
	if err := os.WriteFile(k.identity, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}
	if k.client, err = ssh.NewPublicKey(clientPub); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *keys) serverConfig() *ssh.ServerConfig {
	want := string(k.client.Marshal())
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
		if string(key.Marshal()) == want {
			return nil, nil
		}
		return nil, fmt.Errorf("unknown key")
	}}
	cfg.AddHostKey(k.host)
	return cfg
}
