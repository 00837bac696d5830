package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/fleetlab/fleet/transport"
)

// defaultIdentities are tried, in this order, when neither the board nor the ssh config names one.
var defaultIdentities = []string{"id_ed25519", "id_ecdsa", "id_rsa"}

// sshAuth is the public key authentication for one hop: keys from identity files and from ssh-agent.
type sshAuth struct {
	signers []ssh.Signer
	notes   []string // identities that could not be used, and why
	agent   net.Conn
}

// loadAuth collects the keys to offer for h, like ssh: explicit identity files first, then the agent's keys;
// without explicit files, the agent's keys then the default identities. An encrypted key the agent does not hold
// is not an error by itself: it becomes a note that explains a later authentication failure.
func loadAuth(h sshHop, home, agentSock string) (*sshAuth, error) {
	a := &sshAuth{}
	var agentKeys []ssh.Signer
	if agentSock != "" {
		if conn, err := net.Dial("unix", agentSock); err == nil {
			a.agent = conn
			agentKeys, _ = agent.NewClient(conn).Signers()
		} else {
			a.notes = append(a.notes, fmt.Sprintf("ssh-agent at %s: %v", agentSock, err))
		}
	}
	explicit := len(h.identities) > 0
	files := h.identities
	if !explicit {
		for _, n := range defaultIdentities {
			files = append(files, filepath.Join(home, ".ssh", n))
		}
		a.add(agentKeys...)
	}
	for _, f := range files {
		s, err := readIdentity(f, home, agentKeys)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !explicit:
			continue
		case errors.Is(err, errInAgent):
			continue
		case errors.Is(err, errEncrypted):
			a.notes = append(a.notes, err.Error())
		case err != nil && explicit:
			a.close()
			return nil, fmt.Errorf("%w: %w", transport.ErrAuthFailed, err)
		case err != nil:
			a.notes = append(a.notes, err.Error())
		default:
			a.add(s)
		}
	}
	if explicit {
		a.add(agentKeys...)
	}
	if len(a.signers) == 0 {
		a.close()
		what := "no usable identity (set identity_file in boards.toml, or load a key into ssh-agent)"
		if !explicit {
			what = fmt.Sprintf("no usable identity: no ssh-agent key, and none of %s could be used (set identity_file in boards.toml, "+
				"or load a key into ssh-agent)", strings.Join(files, ", "))
		}
		return nil, a.failure(what)
	}
	return a, nil
}

func (a *sshAuth) add(signers ...ssh.Signer) {
	for _, s := range signers {
		blob := s.PublicKey().Marshal()
		dup := false
		for _, have := range a.signers {
			if bytes.Equal(have.PublicKey().Marshal(), blob) {
				dup = true
				break
			}
		}
		if !dup {
			a.signers = append(a.signers, s)
		}
	}
}

// failure is transport.ErrAuthFailed with the notes that explain it.
func (a *sshAuth) failure(what string) error {
	if len(a.notes) == 0 {
		return fmt.Errorf("%w: %s", transport.ErrAuthFailed, what)
	}
	return fmt.Errorf("%w: %s; %s", transport.ErrAuthFailed, what, strings.Join(a.notes, "; "))
}

func (a *sshAuth) methods() []ssh.AuthMethod {
	return []ssh.AuthMethod{ssh.PublicKeys(a.signers...)}
}

func (a *sshAuth) close() {
	if a.agent != nil {
		a.agent.Close()
	}
}

var (
	errEncrypted = errors.New("encrypted")
	errInAgent   = errors.New("held by the agent")
	// errTooOpen is a private key that others may read: OpenSSH refuses to use it ("UNPROTECTED PRIVATE KEY
	// FILE"), so a key that works with fleet must also work with ssh, and a leaked key is the user's to fix.
	errTooOpen = errors.New("too open")
)

// readIdentity parses a private key file. An encrypted key is errInAgent when the agent holds it, else errEncrypted
// with the message users need.
func readIdentity(path, home string, agentKeys []ssh.Signer) (ssh.Signer, error) {
	b, fi, err := readFileStat(path)
	if err != nil {
		return nil, fmt.Errorf("identity %s: %w", tildePath(path, home), err)
	}
	s, err := ssh.ParsePrivateKey(b)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		for _, k := range agentKeys {
			if missing.PublicKey != nil && bytes.Equal(k.PublicKey().Marshal(), missing.PublicKey.Marshal()) {
				return nil, errInAgent
			}
		}
	}
	if err := checkKeyMode(fi, tildePath(path, home)); err != nil {
		return nil, err
	}
	if missing != nil {
		return nil, fmt.Errorf("identity %s is %w: add it to ssh-agent (ssh-add) or use an unencrypted key",
			tildePath(path, home), errEncrypted)
	}
	if err != nil {
		return nil, fmt.Errorf("identity %s: %w", tildePath(path, home), err)
	}
	return s, nil
}

// readFileStat reads a file and stats the file it read (not a path that may have changed in between).
func readFileStat(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(f)
	return b, fi, err
}

// checkKeyMode refuses a private key that group or others may access, as OpenSSH's sshkey_perm_ok does: only for
// a file of the user running fleet (root reading another user's key is not refused by ssh either).
func checkKeyMode(fi fs.FileInfo, shown string) error {
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil
	}
	return fmt.Errorf("identity %s: permissions %04o are %w: others can read this private key, and OpenSSH refuses "+
		"such a key; fix with: chmod 600 %s", shown, perm, errTooOpen, shown)
}

// tildePath shows paths under home as ~/..., as users write them.
func tildePath(path, home string) string {
	if home != "" && strings.HasPrefix(path, home+string(filepath.Separator)) {
		return "~" + path[len(home):]
	}
	return path
}
