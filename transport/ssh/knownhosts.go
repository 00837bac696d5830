package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/fleetlab/fleet/transport"
)

// hostKeys checks host keys against known_hosts files like ssh with StrictHostKeyChecking=yes, or =accept-new.
type hostKeys struct {
	files     []string // the first one is where new hosts are appended
	acceptNew bool
	hash      bool // write hashed host names (HashKnownHosts yes)
	logf      func(string, ...any)
	db        ssh.HostKeyCallback // nil when no file exists yet
}

func loadHostKeys(files []string, acceptNew, hash bool, logf func(string, ...any)) (*hostKeys, error) {
	k := &hostKeys{files: files, acceptNew: acceptNew, hash: hash, logf: logf}
	var existing []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			existing = append(existing, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("known_hosts: %w", err)
		}
	}
	if len(existing) > 0 {
		db, err := parsedKnownHosts(existing)
		if err != nil {
			return nil, fmt.Errorf("known_hosts: %w", err)
		}
		k.db = db
	}
	return k, nil
}

// knownHostsCache holds parsed known_hosts files, keyed by their names, sizes and modification times: without
// it every connection parses the whole file and keeps its own copy (seen: 63 MB of 170 MB live heap with 500
// boards in one known_hosts, and 250,000 lines parsed). A file that changes (accept-new appends) is parsed again.
var knownHostsCache = struct {
	sync.Mutex
	m map[string]ssh.HostKeyCallback
}{m: map[string]ssh.HostKeyCallback{}}

func parsedKnownHosts(files []string) (ssh.HostKeyCallback, error) {
	var key strings.Builder
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&key, "%s\x00%d\x00%d\x00", f, st.Size(), st.ModTime().UnixNano())
	}
	knownHostsCache.Lock()
	defer knownHostsCache.Unlock()
	if db, ok := knownHostsCache.m[key.String()]; ok {
		return db, nil
	}
	db, err := knownhosts.New(files...)
	if err != nil {
		return nil, err
	}
	if len(knownHostsCache.m) > 64 { // files that keep changing: keep the cache small
		clear(knownHostsCache.m)
	}
	knownHostsCache.m[key.String()] = db
	return db, nil
}

// known returns the keys recorded for addr (host:port), found by asking the database about a key it cannot hold.
func (k *hostKeys) known(addr string) []knownhosts.KnownKey {
	if k.db == nil {
		return nil
	}
	_, probe, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil
	}
	signer, err := ssh.NewSignerFromKey(probe)
	if err != nil {
		return nil
	}
	var keyErr *knownhosts.KeyError
	if errors.As(k.db(addr, probeAddr, signer.PublicKey()), &keyErr) {
		return keyErr.Want
	}
	return nil
}

// algorithms are the host key algorithms to offer for addr: exactly the types known_hosts holds for it, so that a
// board with several host keys presents the one we know (x/crypto prefers ECDSA over ed25519 otherwise, and
// reports a mismatch when only the ed25519 key is known). Nil for an unknown host: any algorithm will do.
func (k *hostKeys) algorithms(addr string) []string {
	var algos []string
	for _, kk := range k.known(addr) {
		for _, a := range algorithmsForKey(kk.Key.Type()) {
			if !contains(algos, a) {
				algos = append(algos, a)
			}
		}
	}
	return algos
}

func algorithmsForKey(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// callback checks the key presented by addr. Mismatches become *HostKeyError, unknown hosts
// transport.ErrUnknownHost unless AcceptNew, in which case the key is appended to the first known_hosts file.
func (k *hostKeys) callback(addr string) ssh.HostKeyCallback {
	return func(_ string, remote net.Addr, key ssh.PublicKey) error {
		host := knownhosts.Normalize(addr)
		var err error = &knownhosts.KeyError{}
		if k.db != nil {
			err = k.db(addr, remote, key)
		}
		var keyErr *knownhosts.KeyError
		var revoked *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &revoked):
			return &HostKeyError{Host: host, File: revoked.Revoked.Filename, Line: revoked.Revoked.Line,
				Revoked: true, Got: describeKey(key)}
		case errors.As(err, &keyErr) && len(keyErr.Want) > 0:
			return mismatch(host, key, keyErr.Want)
		case errors.As(err, &keyErr):
			if !k.acceptNew {
				return fmt.Errorf("%w: %s (%s) is not in %s; connect once with accept-new or add its key there",
					transport.ErrUnknownHost, host, describeKey(key), strings.Join(k.files, ", "))
			}
			if err := k.add(host, key); err != nil {
				return err
			}
			if k.logf != nil {
				k.logf("added %s (%s) to %s", host, describeKey(key), k.files[0])
			}
			return nil
		default:
			return fmt.Errorf("check host key of %s: %w", host, err)
		}
	}
}

// mismatch names the recorded key of the presented type, if there is one, else the first recorded key.
func mismatch(host string, got ssh.PublicKey, want []knownhosts.KnownKey) *HostKeyError {
	w := want[0]
	for _, kk := range want {
		if kk.Key.Type() == got.Type() {
			w = kk
			break
		}
	}
	return &HostKeyError{Host: host, File: w.Filename, Line: w.Line, Want: describeKey(w.Key), Got: describeKey(got)}
}

func describeKey(k ssh.PublicKey) string { return k.Type() + " " + ssh.FingerprintSHA256(k) }

// knownHostsMu serialises appends by concurrent dials within this process.
var knownHostsMu sync.Mutex

// add appends host's key to the first known_hosts file, creating it (0600, directory 0700) if needed, in the
// form OpenSSH writes: "[host]:port" for ports other than 22, hashed if asked.
func (k *hostKeys) add(host string, key ssh.PublicKey) error {
	knownHostsMu.Lock()
	defer knownHostsMu.Unlock()
	file := k.files[0]
	if db, err := knownhosts.New(file); err == nil && db(host, probeAddr, key) == nil {
		return nil // a concurrent dial to the same new board added it
	}
	name := host
	if k.hash {
		name = knownhosts.HashHostname(host)
	}
	line := name + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))) + "\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("add %s to known_hosts: %w", host, err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("add %s to known_hosts: %w", host, err)
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 && !endsWithNewline(file, st.Size()) {
		line = "\n" + line
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return fmt.Errorf("add %s to %s: %w", host, file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("add %s to %s: %w", host, file, err)
	}
	return nil
}

func endsWithNewline(file string, size int64) bool {
	f, err := os.Open(file)
	if err != nil {
		return true
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, size-1); err != nil {
		return true
	}
	return b[0] == '\n'
}

// probeAddr is the remote address handed to the database when probing: it looks up the host name instead.
var probeAddr net.Addr = &net.TCPAddr{IP: net.IPv4zero}
