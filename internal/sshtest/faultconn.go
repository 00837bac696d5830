package sshtest

import (
	"net"
	"sync"
	"sync/atomic"
)

// faultConn is a server-side connection that can be cut (a black hole) or closed from outside.
type faultConn struct {
	net.Conn
	cut       atomic.Bool
	closed    chan struct{}
	closeOnce sync.Once
}

func newFaultConn(c net.Conn) *faultConn {
	return &faultConn{Conn: c, closed: make(chan struct{})}
}

// Read drops whatever arrives once the link is cut and blocks until the connection is closed.
func (c *faultConn) Read(p []byte) (int, error) {
	if c.cut.Load() {
		<-c.closed
		return 0, net.ErrClosed
	}
	n, err := c.Conn.Read(p)
	if c.cut.Load() {
		<-c.closed
		return 0, net.ErrClosed
	}
	return n, err
}

// Write pretends to send once the link is cut.
func (c *faultConn) Write(p []byte) (int, error) {
	if c.cut.Load() {
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *faultConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = c.Conn.Close()
	})
	return err
}
