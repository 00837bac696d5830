package ssh

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/transport"
	"golang.org/x/crypto/ssh"
)

// Options tune how Dial connects. The zero value is strict and uses the defaults noted on each field.
type Options struct {
	// AcceptNew trusts a host missing from known_hosts and appends its key there, like OpenSSH's
	// StrictHostKeyChecking=accept-new. A changed key is refused regardless.
	AcceptNew bool
	// ConnectTimeout bounds the TCP connect and the SSH handshake of each hop (default 10s).
	ConnectTimeout time.Duration
	// KeepaliveInterval is how often keepalive@openssh.com is sent (default 3s; negative disables keepalives).
	KeepaliveInterval time.Duration
	// KeepaliveTimeout is how long a keepalive reply may take before the connection is declared lost
	// (default 5s), so a dead link is noticed within KeepaliveInterval+KeepaliveTimeout.
	KeepaliveTimeout time.Duration
	// Retries is how many more connection attempts follow a retryable failure (refused, timeout); default 3,
	// negative for none. Authentication and host key failures are never retried.
	Retries int
	// RetryBackoff is the delay before the first retry, doubled for each next one (default 500ms).
	RetryBackoff time.Duration
	// SSHConfigPath is the ssh client config to read (default Home/.ssh/config; missing is fine).
	SSHConfigPath string
	// Home replaces the user's home directory for ~ expansion, default identities and known_hosts (tests).
	Home string
	// AgentSocket is the ssh-agent socket (default $SSH_AUTH_SOCK; "none" disables the agent).
	AgentSocket string
	// Logf receives retries, keys added to known_hosts and lost connections; nil discards them.
	Logf func(format string, args ...any)
}

func (o Options) withDefaults() Options {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.KeepaliveInterval == 0 {
		o.KeepaliveInterval = 3 * time.Second
	}
	if o.KeepaliveTimeout <= 0 {
		o.KeepaliveTimeout = 5 * time.Second
	}
	switch {
	case o.Retries == 0:
		o.Retries = 3
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = 500 * time.Millisecond
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.SSHConfigPath == "" {
		o.SSHConfigPath = filepath.Join(o.Home, ".ssh", "config")
	}
	switch o.AgentSocket {
	case "":
		o.AgentSocket = os.Getenv("SSH_AUTH_SOCK")
	case "none":
		o.AgentSocket = ""
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// Transport is a transport.Transport over one SSH connection to a board, possibly through ProxyJump hosts.
// It is safe for concurrent use: each Run opens its own session.
type Transport struct {
	board   string
	target  sshHop
	clients []*ssh.Client // jump hosts first, the board last
	logf    func(string, ...any)

	dialer   *chainDialer // how the connection was made: mode ssh dials the board again the same way (cipher.go)
	opts     Options
	lastRead *activity     // when the board last sent a byte (the keepalive waits longer while it does)
	done     chan struct{} // closed when the board's connection has ended
	wg       sync.WaitGroup

	mu     sync.Mutex
	closed bool
	lost   error // why the connection ended, when it was not Close
}

var _ transport.Transport = (*Transport)(nil)

// Dial connects to board b the way the user's ssh would: ~/.ssh/config (aliases, HostName, Port, User,
// IdentityFile, ProxyJump), identity files and ssh-agent, and strict known_hosts checking. The board's own fields
// win over the ssh config. Retryable failures are retried with backoff; the error matches one of transport's
// ErrAuthFailed, ErrHostKeyMismatch, ErrUnknownHost, ErrUnreachable, ErrTimeout or ErrConnectionLost, or wraps
// ctx.Err().
func Dial(ctx context.Context, b inventory.Board, opts Options) (*Transport, error) {
	opts = opts.withDefaults()
	name := boardName(b)
	if b.Local {
		return nil, fmt.Errorf("connect to %s: it is the host itself, not an SSH board", name)
	}
	cfg, err := loadSSHConfig(opts.SSHConfigPath, opts.Home)
	if err != nil {
		// A config this parser cannot read (Match exec, ...) must not lock every board out: go on without it.
		opts.Logf("%s: ignoring the ssh config: %v", name, err)
		cfg = &sshConfig{home: opts.Home}
	}
	hops, err := cfg.hops(b)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", name, err)
	}
	d := &chainDialer{
		opts:       opts,
		hops:       hops,
		knownHosts: cfg.knownHostsFiles(b),
		hash:       strings.EqualFold(cfg.get(b.Host, "HashKnownHosts"), "yes"),
		lastRead:   &activity{},
	}
	target := hops[len(hops)-1]
	var clients []*ssh.Client
	err = retry(ctx, opts.Retries, opts.RetryBackoff, opts.Logf, "connect to "+name, func(ctx context.Context) error {
		clients, err = d.dial(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("connect to %s (%s): %w", name, target, err)
	}
	return newTransport(name, target, clients, d, opts), nil
}

// newTransport wraps a dialled chain, watching the board's connection and keeping it alive.
func newTransport(name string, target sshHop, clients []*ssh.Client, d *chainDialer, opts Options) *Transport {
	t := &Transport{board: name, target: target, clients: clients, logf: opts.Logf, lastRead: d.lastRead,
		dialer: d, opts: opts, done: make(chan struct{})}
	last := clients[len(clients)-1]
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		last.Wait()
		close(t.done)
	}()
	if opts.KeepaliveInterval > 0 {
		t.wg.Add(1)
		go t.keepalive(last, opts.KeepaliveInterval, opts.KeepaliveTimeout)
	}
	return t
}

func boardName(b inventory.Board) string {
	if b.Name != "" {
		return b.Name
	}
	return b.Host
}

// Close closes the connection and every jump host connection, and waits for the transport's goroutines.
func (t *Transport) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.closeClients()
	t.wg.Wait()
	return nil
}

func (t *Transport) closeClients() {
	for i := len(t.clients) - 1; i >= 0; i-- {
		t.clients[i].Close()
	}
}

// fail ends the connection because it is no longer usable; Runs in progress return transport.ErrConnectionLost.
func (t *Transport) fail(err error) {
	t.mu.Lock()
	if t.lost == nil && !t.closed {
		t.lost = err
		t.logf("%s: %v", t.board, err)
	}
	t.mu.Unlock()
	t.closeClients()
}

// lostErr explains why the connection is gone, matching transport.ErrConnectionLost unless the transport was closed.
func (t *Transport) lostErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.lost != nil:
		return t.lost
	case t.closed:
		return errors.New("transport closed")
	default:
		return fmt.Errorf("%w: connection closed", transport.ErrConnectionLost)
	}
}

// alive reports whether the connection is still up.
func (t *Transport) alive() bool {
	select {
	case <-t.done:
		return false
	default:
		return true
	}
}
