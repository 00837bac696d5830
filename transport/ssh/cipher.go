package ssh

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
)

// ErrCipherNotOffered means the board's SSH server does not offer the cipher mode ssh asked for: a skip with the
// reason, not a failure. The error is a *CipherRefusedError.
var ErrCipherNotOffered = errors.New("cipher not offered")

// CipherRefusedError is a handshake that found no common cipher: the server does not offer Cipher.
type CipherRefusedError struct {
	Cipher  string
	Offered []string // what the server offers, as it said in its key exchange
}

func (e *CipherRefusedError) Error() string {
	msg := "server does not offer " + e.Cipher
	if len(e.Offered) > 0 {
		msg += " (it offers " + strings.Join(e.Offered, ", ") + ")"
	}
	return msg
}

// Is makes errors.Is(err, ErrCipherNotOffered) true.
func (e *CipherRefusedError) Is(target error) bool { return target == ErrCipherNotOffered }

// CipherConn is a fresh connection to a board whose client offered one cipher only (mode ssh), with what was
// negotiated, read back from the connection. Mode ssh times transfers through its Sessions: the surface is what
// that needs, and the connection's client stays the transport's.
type CipherConn struct {
	*Transport
	client  *ssh.Client // the board's hop
	algs    ssh.NegotiatedAlgorithms
	server  string   // the server's version string
	jumpers []string // jump hosts crossed, in order; empty when the board is reached directly
}

// DialCipher connects to the board again exactly as the transport did (the same ssh config, ProxyJump chain,
// host key checks, identities and retries), except that the board's hop offers only cipher. Jump hosts keep
// their default ciphers: through ProxyJump the measured path is the whole chain. A server that does not offer
// the cipher is a *CipherRefusedError, never retried.
func (t *Transport) DialCipher(ctx context.Context, cipher string) (*CipherConn, error) {
	if t.dialer == nil {
		return nil, fmt.Errorf("connect to %s with %s: transport has no dialer", t.board, cipher)
	}
	d := *t.dialer
	d.ciphers = []string{cipher}
	d.lastRead = &activity{}
	var clients []*ssh.Client
	err := retry(ctx, t.opts.Retries, t.opts.RetryBackoff, t.opts.Logf, "connect to "+t.board+" with "+cipher,
		func(ctx context.Context) error {
			var err error
			clients, err = d.dial(ctx)
			var algErr *ssh.AlgorithmNegotiationError
			if errors.As(err, &algErr) && strings.Contains(algErr.What, "cipher") {
				return &CipherRefusedError{Cipher: cipher, Offered: algErr.RequestedAlgorithms}
			}
			return err
		})
	if err != nil {
		if errors.Is(err, ErrCipherNotOffered) {
			return nil, err
		}
		return nil, fmt.Errorf("connect to %s (%s) with %s: %w", t.board, t.target, cipher, err)
	}
	c := &CipherConn{Transport: newTransport(t.board, t.target, clients, &d, t.opts)}
	c.client = clients[len(clients)-1]
	if m, ok := c.client.Conn.(ssh.AlgorithmsConnMetadata); ok {
		c.algs = m.Algorithms()
	}
	c.server = string(c.client.ServerVersion())
	for _, h := range d.hops[:len(d.hops)-1] {
		c.jumpers = append(c.jumpers, h.String())
	}
	return c, nil
}

// Negotiated describes the board hop's cipher and MAC in both directions as x/crypto/ssh negotiated them:
// "aes128-ctr, hmac-sha2-256-etm@openssh.com", or "aes128-gcm@openssh.com, implicit MAC" for an AEAD cipher.
// When the two directions differ (they cannot with one cipher offered) both are given, upload first.
func (c *CipherConn) Negotiated() string {
	dir := func(a ssh.DirectionAlgorithms) string {
		mac := a.MAC
		if mac == "" {
			mac = "implicit MAC"
		}
		return a.Cipher + ", " + mac
	}
	up, down := dir(c.algs.Write), dir(c.algs.Read)
	if up == down {
		return up
	}
	return "upload " + up + "; download " + down
}

// Check verifies that both directions use cipher: the client offered nothing else, and this says so from the
// connection itself rather than from what was asked.
func (c *CipherConn) Check(cipher string) error {
	if c.algs.Write.Cipher != cipher || c.algs.Read.Cipher != cipher {
		return fmt.Errorf("negotiated %q to the board and %q from it, asked for %s only", c.algs.Write.Cipher,
			c.algs.Read.Cipher, cipher)
	}
	return nil
}

// Server is the board's SSH server version string, as it sent it.
func (c *CipherConn) Server() string { return c.server }

// Jumpers are the jump hosts crossed, in order (user@host:port); none when the board is reached directly.
func (c *CipherConn) Jumpers() []string { return slices.Clone(c.jumpers) }

// Lost names the connection's end when it is what broke a transfer: a cut link ends in a keepalive timeout,
// and that says more than the read error it caused.
func (c *CipherConn) Lost(err error) error {
	if c.waitLost() {
		return fmt.Errorf("%w (%w)", err, c.lostErr())
	}
	return err
}

// CipherSession is one session of a CipherConn that cancelling the context it was opened with closes.
type CipherSession struct {
	*ssh.Session
	stop func() bool
	once sync.Once
}

// Session opens a session on the board's hop. A blocked write or read of it returns when the session (and, on
// cancel, the whole connection) closes.
func (c *CipherConn) Session(ctx context.Context) (*CipherSession, error) {
	if !c.alive() {
		return nil, c.lostErr()
	}
	s, err := c.client.NewSession()
	if err != nil {
		return nil, c.Lost(fmt.Errorf("open session: %w", err))
	}
	ts := &CipherSession{Session: s}
	ts.stop = context.AfterFunc(ctx, func() { c.Transport.Close() })
	return ts, nil
}

// Close ends the session once and forgets the context it was opened with.
func (s *CipherSession) Close() error {
	s.once.Do(func() {
		s.stop()
		s.Session.Close()
	})
	return nil
}
