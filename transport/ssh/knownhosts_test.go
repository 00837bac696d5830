package ssh

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/sshtest"
	"github.com/fleetlab/fleet/transport"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func TestKnownHostsMismatch(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	b := testBoard(t, srv)
	// Line 1: another host; line 2: this host with a key it does not have (it was reinstalled).
	b.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	sshtest.AppendKnownHosts(t, b.KnownHosts, "192.0.2.1:22", sshtest.NewSigner(t, "ed25519").PublicKey())
	sshtest.AppendKnownHosts(t, b.KnownHosts, srv.Addr(), sshtest.NewSigner(t, "ed25519").PublicKey())
	opts := testSSHOptions(t)
	opts.Retries = 3
	opts.AcceptNew = true // never overrides a changed key
	_, err := Dial(context.Background(), b, opts)
	if !errors.Is(err, transport.ErrHostKeyMismatch) {
		t.Fatalf("Dial = %v, want transport.ErrHostKeyMismatch", err)
	}
	var hk *HostKeyError
	if !errors.As(err, &hk) {
		t.Fatalf("Dial = %T, want *HostKeyError in the chain", err)
	}
	if hk.File != b.KnownHosts || hk.Line != 2 {
		t.Errorf("HostKeyError names %s:%d, want %s:2", hk.File, hk.Line, b.KnownHosts)
	}
	if want := b.KnownHosts + ":2"; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not name %s", err, want)
	}
	if got := srv.Connections(); got != 1 {
		t.Errorf("connections = %d, want 1 (no retry on a host key mismatch)", got)
	}
}

func TestKnownHostsChangedAfterFirstUse(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	b := testBoard(t, srv)
	dialTest(t, b, testSSHOptions(t)).Close()
	srv.Set(func(o *sshtest.Options) { o.HostKeys = []ssh.Signer{sshtest.NewSigner(t, "ed25519")} })
	_, err := Dial(context.Background(), b, testSSHOptions(t))
	var hk *HostKeyError
	if !errors.As(err, &hk) || hk.Line != 1 {
		t.Fatalf("Dial after the host key changed = %v, want *HostKeyError at line 1", err)
	}
}

func TestKnownHostsUnknown(t *testing.T) {
	tests := []struct {
		name      string
		sshConfig string
		wantHash  bool
	}{
		{name: "plain"},
		{name: "hashed", sshConfig: "Host *\n  HashKnownHosts yes\n", wantHash: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := sshtest.Start(t, sshtest.Options{})
			b := testBoard(t, srv)
			b.KnownHosts = filepath.Join(t.TempDir(), "sub", "known_hosts") // not there yet
			opts := testSSHOptions(t)
			opts.SSHConfigPath = filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(opts.SSHConfigPath, []byte(tc.sshConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			opts.Retries = 3
			if _, err := Dial(context.Background(), b, opts); !errors.Is(err, transport.ErrUnknownHost) {
				t.Fatalf("Dial = %v, want transport.ErrUnknownHost", err)
			}
			if got := srv.Connections(); got != 1 {
				t.Errorf("connections = %d, want 1 (no retry for an unknown host)", got)
			}

			opts.AcceptNew = true
			tr := dialTest(t, b, opts)
			tr.Close()
			data, err := os.ReadFile(b.KnownHosts)
			if err != nil {
				t.Fatal(err)
			}
			line := strings.TrimSpace(string(data))
			host := "[127.0.0.1]:" + strings.TrimPrefix(srv.Addr(), "127.0.0.1:")
			if tc.wantHash {
				if !strings.HasPrefix(line, "|1|") || strings.Contains(line, "127.0.0.1") {
					t.Errorf("known_hosts = %q, want a hashed host name", line)
				}
			} else if want := knownhosts.Line([]string{srv.Addr()}, srv.HostKeys()[0]); line != want {
				t.Errorf("known_hosts = %q, want %q", line, want)
			}
			if !strings.Contains(line, " ssh-ed25519 ") {
				t.Errorf("known_hosts = %q, want the ed25519 key", line)
			}
			if st, err := os.Stat(b.KnownHosts); err == nil && st.Mode().Perm() != 0o600 {
				t.Errorf("known_hosts mode = %v, want 0600", st.Mode().Perm())
			}

			opts.AcceptNew = false
			dialTest(t, b, opts).Close()
			cb, err := knownhosts.New(b.KnownHosts)
			if err != nil {
				t.Fatal(err)
			}
			if err := cb(host, &net.TCPAddr{}, srv.HostKeys()[0]); err != nil {
				t.Errorf("the line written does not match %s for x/crypto knownhosts: %v", host, err)
			}
		})
	}
}

// TestKnownHostsTwoHostKeys is a board with ed25519 and ECDSA host keys, of which known_hosts holds one.
// x/crypto prefers ECDSA: unless HostKeyAlgorithms is taken from known_hosts, the board presents its ECDSA
// key and the check fails with "knownhosts: key mismatch".
func TestKnownHostsTwoHostKeys(t *testing.T) {
	ed, ec := sshtest.NewSigner(t, "ed25519"), sshtest.NewSigner(t, "ecdsa")
	srv := sshtest.Start(t, sshtest.Options{HostKeys: []ssh.Signer{ed, ec}})
	for _, known := range []ssh.Signer{ed, ec} {
		t.Run(known.PublicKey().Type(), func(t *testing.T) {
			b := testBoard(t, srv)
			b.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
			sshtest.AppendKnownHosts(t, b.KnownHosts, srv.Addr(), known.PublicKey())
			tr := dialTest(t, b, testSSHOptions(t))
			if err := tr.Run(context.Background(), transport.Command{Args: []string{"true"}}); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("without HostKeyAlgorithms", func(t *testing.T) {
		// The failure this guards against, so that the test above cannot pass by accident.
		kh := filepath.Join(t.TempDir(), "known_hosts")
		sshtest.AppendKnownHosts(t, kh, srv.Addr(), ed.PublicKey())
		cb, err := knownhosts.New(kh)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := ssh.NewSignerFromKey(srv.ClientKey())
		if err != nil {
			t.Fatal(err)
		}
		c, err := ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{User: "tester", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
			HostKeyCallback: cb})
		if err == nil {
			c.Close()
			t.Skip("x/crypto no longer prefers ECDSA host keys")
		}
		var keyErr *knownhosts.KeyError
		if !errors.As(err, &keyErr) || len(keyErr.Want) == 0 {
			t.Errorf("plain x/crypto dial = %v, want knownhosts: key mismatch", err)
		}
	})
}

func TestKnownHostsAlgorithms(t *testing.T) {
	kh := filepath.Join(t.TempDir(), "known_hosts")
	rsaKey, edKey := sshtest.NewSigner(t, "rsa").PublicKey(), sshtest.NewSigner(t, "ed25519").PublicKey()
	sshtest.AppendKnownHosts(t, kh, "board:22", rsaKey, edKey)
	sshtest.AppendKnownHosts(t, kh, "[board]:2222", edKey)
	keys, err := loadHostKeys([]string{kh}, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		addr string
		want string
	}{
		{"board:22", "rsa-sha2-512 rsa-sha2-256 ssh-rsa ssh-ed25519"},
		{"board:2222", "ssh-ed25519"},
		{"other:22", ""},
	}
	for _, tc := range tests {
		if got := strings.Join(keys.algorithms(tc.addr), " "); got != tc.want {
			t.Errorf("algorithms(%s) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestKnownHostsOnlyOtherKeyType: known_hosts has an ECDSA key, the board now offers only ed25519 (reinstalled
// with other keys). Like ssh, this is refused, naming the line.
func TestKnownHostsOnlyOtherKeyType(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	b := testBoard(t, srv)
	b.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	sshtest.AppendKnownHosts(t, b.KnownHosts, srv.Addr(), sshtest.NewSigner(t, "ecdsa").PublicKey())
	_, err := Dial(context.Background(), b, testSSHOptions(t))
	var hk *HostKeyError
	if !errors.As(err, &hk) || hk.File != b.KnownHosts || hk.Line != 1 {
		t.Errorf("Dial = %v, want a *HostKeyError at %s:1", err, b.KnownHosts)
	}
}

func TestKnownHostsAcceptNewConcurrent(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	b := testBoard(t, srv)
	b.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	opts := testSSHOptions(t)
	opts.AcceptNew = true
	errc := make(chan error, 4)
	for range 4 {
		go func() {
			tr, err := Dial(context.Background(), b, opts)
			if err == nil {
				tr.Close()
			}
			errc <- err
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	data, err := os.ReadFile(b.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Errorf("known_hosts has %d lines, want 1:\n%s", n, data)
	}
}
