package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/fleetlab/fleet/transport"
)

// chainDialer makes one connection attempt through the ProxyJump hops to the board.
type chainDialer struct {
	opts       Options
	hops       []sshHop
	knownHosts []string
	hash       bool
	lastRead   *activity // reads from the board's hop, for the keepalive; nil: not tracked
	ciphers    []string  // the board's hop offers only these (mode ssh); nil: x/crypto's defaults
}

// dial connects hop after hop: TCP to the first, then a direct-tcpip channel through each client to the next,
// each with its own host key check and authentication. On failure every hop already open is closed.
func (d *chainDialer) dial(ctx context.Context) ([]*ssh.Client, error) {
	var clients []*ssh.Client
	fail := func(i int, err error) ([]*ssh.Client, error) {
		for j := len(clients) - 1; j >= 0; j-- {
			clients[j].Close()
		}
		if i < len(d.hops)-1 {
			err = fmt.Errorf("jump host %s: %w", d.hops[i], err)
		}
		return nil, err
	}
	for i, h := range d.hops {
		// Identities first: a key that cannot be used is known without touching the network.
		auth, err := loadAuth(h, d.opts.Home, d.opts.AgentSocket)
		if err != nil {
			return fail(i, err)
		}
		var conn net.Conn
		if i == 0 {
			conn, err = d.dialTCP(ctx, h.addr())
		} else {
			conn, err = d.dialThrough(ctx, clients[i-1], h.addr())
		}
		if err != nil {
			auth.close()
			return fail(i, err)
		}
		if i == len(d.hops)-1 && d.lastRead != nil {
			conn = &activityConn{Conn: conn, last: d.lastRead}
		}
		var ciphers []string
		if i == len(d.hops)-1 {
			ciphers = d.ciphers // jump hosts keep their defaults: only the board's cipher is chosen
		}
		c, err := d.handshake(ctx, conn, h, auth, ciphers)
		auth.close()
		if err != nil {
			return fail(i, err)
		}
		clients = append(clients, c)
	}
	return clients, nil
}

func (d *chainDialer) dialTCP(ctx context.Context, addr string) (net.Conn, error) {
	nd := net.Dialer{Timeout: d.opts.ConnectTimeout, KeepAlive: 15 * time.Second}
	conn, err := nd.DialContext(ctx, "tcp", addr)
	if err == nil {
		return conn, nil
	}
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("dial %s: %w", addr, ctx.Err())
	case errors.As(err, &ne) && ne.Timeout():
		return nil, fmt.Errorf("%w: dial %s: no answer within %v", transport.ErrTimeout, addr, d.opts.ConnectTimeout)
	default:
		return nil, fmt.Errorf("%w: %w", transport.ErrUnreachable, err)
	}
}

// dialThrough opens a direct-tcpip channel through a jump host, like ssh -W.
func (d *chainDialer) dialThrough(ctx context.Context, via *ssh.Client, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, d.opts.ConnectTimeout)
	defer cancel()
	conn, err := via.DialContext(ctx, "tcp", addr)
	if err == nil {
		return conn, nil
	}
	var oce *ssh.OpenChannelError
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return nil, fmt.Errorf("%w: dial %s through jump host: no answer within %v", transport.ErrTimeout, addr,
			d.opts.ConnectTimeout)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("dial %s through jump host: %w", addr, ctx.Err())
	case errors.As(err, &oce) && oce.Reason == ssh.Prohibited:
		// AllowTcpForwarding no: asking again will not help.
		return nil, fmt.Errorf("dial %s through jump host: forwarding refused: %w", addr, err)
	case errors.As(err, &oce):
		return nil, fmt.Errorf("%w: dial %s through jump host: %w", transport.ErrUnreachable, addr, err)
	default:
		return nil, fmt.Errorf("%w: dial %s through jump host: %w", transport.ErrConnectionLost, addr, err)
	}
}

// handshakeState records what the host key callback saw, to classify a failed handshake.
type handshakeState struct {
	mu        sync.Mutex
	keyErr    error
	keyPassed bool
}

// handshake runs the SSH handshake on conn within the connect timeout; a stalled server cannot hold it longer.
func (d *chainDialer) handshake(ctx context.Context, conn net.Conn, h sshHop, auth *sshAuth, ciphers []string) (*ssh.Client, error) {
	keys, err := loadHostKeys(d.knownHosts, d.opts.AcceptNew || h.acceptNew, d.hash, d.opts.Logf)
	if err != nil {
		conn.Close()
		return nil, err
	}
	var st handshakeState
	check := keys.callback(h.addr())
	algos := keys.algorithms(h.addr())
	cfg := &ssh.ClientConfig{
		User: h.user,
		Auth: auth.methods(),
		HostKeyCallback: func(host string, remote net.Addr, key ssh.PublicKey) error {
			err := check(host, remote, key)
			st.mu.Lock()
			st.keyErr, st.keyPassed = err, err == nil
			st.mu.Unlock()
			return err
		},
		HostKeyAlgorithms: algos,
		Timeout:           d.opts.ConnectTimeout,
	}
	cfg.Ciphers = ciphers
	timer := time.AfterFunc(d.opts.ConnectTimeout, func() { conn.Close() })
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, h.addr(), cfg)
	timedOut := !timer.Stop()
	cancelled := !stop()
	if err == nil && (timedOut || cancelled) {
		c.Close()
		err = net.ErrClosed
	}
	if err == nil {
		return ssh.NewClient(c, chans, reqs), nil
	}
	conn.Close()
	st.mu.Lock()
	keyErr, keyPassed := st.keyErr, st.keyPassed
	st.mu.Unlock()
	var algErr *ssh.AlgorithmNegotiationError
	switch {
	case keyErr != nil:
		return nil, keyErr
	case cancelled:
		return nil, fmt.Errorf("ssh handshake with %s: %w", h.addr(), ctx.Err())
	case timedOut:
		return nil, fmt.Errorf("%w: ssh handshake with %s: no answer within %v", transport.ErrTimeout, h.addr(),
			d.opts.ConnectTimeout)
	case errors.As(err, &algErr) && algErr.What == "host key" && len(algos) > 0:
		known := keys.known(h.addr())
		return nil, &HostKeyError{Host: knownhosts.Normalize(h.addr()), File: known[0].Filename,
			Line: known[0].Line, Want: describeKey(known[0].Key),
			Got: "only " + strings.Join(algErr.RequestedAlgorithms, ", ") + " keys"}
	case keyPassed && !isNetworkError(err):
		return nil, auth.failure(fmt.Sprintf("%s@%s: %v", h.user, h.addr(), err))
	default:
		return nil, fmt.Errorf("%w: ssh handshake with %s: %w", transport.ErrConnectionLost, h.addr(), err)
	}
}

// isNetworkError tells a connection that broke from a server that answered "no".
func isNetworkError(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &ne)
}
