package sshtest

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// Options configure a Server. Fault knobs can be changed while it runs with Server.Set.
type Options struct {
	// HostKeys are presented to clients (default: one fresh ed25519 key). Several keys of different types
	// model a board with both ed25519 and ECDSA host keys.
	HostKeys []ssh.Signer
	// AuthorizedKeys may log in (default: ClientKey, see IdentityFile).
	AuthorizedKeys []ssh.PublicKey
	// ClientKey is the key written to IdentityFile (default: a fresh ed25519 key).
	ClientKey crypto.Signer

	RejectAuth          bool          // refuse every key
	StallHandshake      bool          // accept TCP, then never send a byte
	StallAfterHandshake bool          // complete the handshake and authentication, then never answer anything
	IgnoreKeepalives    bool          // leave keepalive@openssh.com requests unanswered
	IgnoreSignals       bool          // refuse "signal" requests, like OpenSSH for some logins
	DropAfterStdout     int           // close the TCP connection once this many stdout bytes were sent (0: never)
	DropAfter           time.Duration // close each connection this long after accepting it (0: never)

	// Logf receives server-side events (default t.Logf).
	Logf func(format string, args ...any)
}

// Server is a running in-process SSH server.
type Server struct {
	t         testing.TB
	ln        net.Listener
	clientKey crypto.Signer
	identity  string

	mu       sync.Mutex
	opts     Options
	conns    map[*faultConn]struct{}
	procs    map[int]struct{} // process group ids of running commands
	forwards []string
	closed   bool

	accepted atomic.Int64
	authTry  atomic.Int64
	wg       sync.WaitGroup
}

// Start starts a server on 127.0.0.1:0; t.Cleanup closes it.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sshtest: listen: %v", err)
	}
	s := &Server{t: t, ln: ln, conns: map[*faultConn]struct{}{}, procs: map[int]struct{}{}}
	if len(opts.HostKeys) == 0 {
		opts.HostKeys = []ssh.Signer{NewSigner(t, "ed25519")}
	}
	s.clientKey = opts.ClientKey
	if s.clientKey == nil {
		s.clientKey = NewKey(t, "ed25519")
	}
	s.identity = filepath.Join(t.TempDir(), "id_ed25519")
	WriteIdentity(t, s.identity, s.clientKey, "")
	if len(opts.AuthorizedKeys) == 0 {
		pub, err := ssh.NewPublicKey(s.clientKey.Public())
		if err != nil {
			t.Fatal(err)
		}
		opts.AuthorizedKeys = []ssh.PublicKey{pub}
	}
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	s.opts = opts
	t.Cleanup(func() { s.Close() })
	s.wg.Add(1)
	go s.accept()
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Host is the server's IP address.
func (s *Server) Host() string { return s.ln.Addr().(*net.TCPAddr).IP.String() }

// Port is the server's TCP port.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// IdentityFile is a private key file (unencrypted ed25519) the server accepts.
func (s *Server) IdentityFile() string { return s.identity }

// ClientKey is the private key in IdentityFile.
func (s *Server) ClientKey() crypto.Signer { return s.clientKey }

// HostKeys are the public host keys currently presented.
func (s *Server) HostKeys() []ssh.PublicKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []ssh.PublicKey
	for _, k := range s.opts.HostKeys {
		keys = append(keys, k.PublicKey())
	}
	return keys
}

// KnownHosts writes a known_hosts file in a temp directory pinning the current host keys and returns its path.
func (s *Server) KnownHosts(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "known_hosts")
	AppendKnownHosts(t, path, s.Addr(), s.HostKeys()...)
	return path
}

// Set changes options for what happens next: new connections, requests and commands. Setting HostKeys models
// a reinstalled board whose host key changed.
func (s *Server) Set(f func(*Options)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.opts)
}

func (s *Server) options() Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts
}

// Open is the number of connections open now.
func (s *Server) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Connections is the number of TCP connections accepted so far.
func (s *Server) Connections() int { return int(s.accepted.Load()) }

// AuthAttempts is the number of public keys clients offered so far.
func (s *Server) AuthAttempts() int { return int(s.authTry.Load()) }

// Forwards lists the host:port destinations of direct-tcpip channels opened so far (ProxyJump).
func (s *Server) Forwards() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.forwards...)
}

// Cut turns every open connection into a black hole, like a cable pulled out: nothing it receives is read or
// answered and what it sends is dropped, but it is not closed.
func (s *Server) Cut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.cut.Store(true)
	}
}

// DropConnections closes every open connection (a reset link).
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := make([]*faultConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Close stops the listener, closes every connection, kills every command still running and waits for all of
// the server's goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.ln.Close()
	s.DropConnections()
	s.killAll()
	s.wg.Wait()
	return nil
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.accepted.Add(1)
		c := newFaultConn(nc)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

func (s *Server) serve(c *faultConn) {
	defer s.wg.Done()
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	opts := s.options()
	if opts.DropAfter > 0 {
		timer := time.AfterFunc(opts.DropAfter, func() { c.Close() })
		defer timer.Stop()
	}
	if opts.StallHandshake {
		io.Copy(io.Discard, c)
		return
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: s.checkKey}
	for _, k := range opts.HostKeys {
		cfg.AddHostKey(k)
	}
	sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	if opts.StallAfterHandshake {
		// Take requests and channels off the connection so it keeps reading, but never answer them.
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for range reqs {
			}
		}()
		for range chans {
		}
		return
	}
	s.wg.Add(1)
	go s.globalRequests(reqs)
	var sessions sync.WaitGroup
	for nch := range chans {
		switch nch.ChannelType() {
		case "session":
			sessions.Add(1)
			go func() {
				defer sessions.Done()
				s.session(nch, c)
			}()
		case "direct-tcpip":
			sessions.Add(1)
			go func() {
				defer sessions.Done()
				s.directTCPIP(nch)
			}()
		default:
			nch.Reject(ssh.UnknownChannelType, "unsupported channel type")
		}
	}
	sessions.Wait()
}

func (s *Server) checkKey(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
	s.authTry.Add(1)
	opts := s.options()
	if opts.RejectAuth {
		return nil, errors.New("sshtest: authentication rejected")
	}
	for _, k := range opts.AuthorizedKeys {
		if bytes.Equal(k.Marshal(), key.Marshal()) {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("sshtest: unknown key %s", ssh.FingerprintSHA256(key))
}

func (s *Server) globalRequests(reqs <-chan *ssh.Request) {
	defer s.wg.Done()
	for r := range reqs {
		switch {
		case r.Type == "keepalive@openssh.com" && s.options().IgnoreKeepalives:
			// never answered: the client must notice on its own
		default:
			// OpenSSH answers unknown global requests with failure; keepalives only need an answer.
			r.Reply(r.Type == "keepalive@openssh.com", nil)
		}
	}
}

// directTCPIP forwards a channel to a TCP destination, as sshd does for ssh -W and ProxyJump.
func (s *Server) directTCPIP(nch ssh.NewChannel) {
	var p struct {
		Host     string
		Port     uint32
		OrigHost string
		OrigPort uint32
	}
	if err := ssh.Unmarshal(nch.ExtraData(), &p); err != nil {
		nch.Reject(ssh.ConnectionFailed, "bad direct-tcpip request")
		return
	}
	addr := net.JoinHostPort(p.Host, strconv.Itoa(int(p.Port)))
	s.mu.Lock()
	s.forwards = append(s.forwards, addr)
	s.mu.Unlock()
	tc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		nch.Reject(ssh.ConnectionFailed, err.Error())
		return
	}
	ch, reqs, err := nch.Accept()
	if err != nil {
		tc.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	done := make(chan struct{}, 2)
	go func() { io.Copy(tc, ch); tc.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	go func() { io.Copy(ch, tc); ch.CloseWrite(); done <- struct{}{} }()
	<-done
	ch.Close()
	tc.Close()
	<-done
}

func (s *Server) logf(format string, args ...any) {
	if l := s.options().Logf; l != nil {
		l("sshtest "+s.Addr()+": "+format, args...)
	}
}
