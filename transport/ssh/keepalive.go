package ssh

import (
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/fleetlab/fleet/transport"
)

// activity is when bytes last arrived from the board, in Unix nanoseconds.
type activity struct{ nanos atomic.Int64 }

func (a *activity) touch()               { a.nanos.Store(time.Now().UnixNano()) }
func (a *activity) since() time.Duration { return time.Since(time.Unix(0, a.nanos.Load())) }

// activityConn records every successful read of the board's connection.
type activityConn struct {
	net.Conn
	last *activity
}

func (c *activityConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.last.touch()
	}
	return n, err
}

// keepaliveMaxWait caps how long one keepalive reply may be waited for while the board keeps sending other data:
// 12 × the 5 s default is a minute, as long as a 3 MiB push was seen to keep a reply queued on a 2-core machine at
// load 30 (the old cap of 4 declared such links lost). A link that moves bytes is not dead; the cap only ends a
// server that answers nothing but keeps talking.
const keepaliveMaxWait = 12

// keepalive sends keepalive@openssh.com every interval; an error, or no reply and no other byte from the board
// within timeout, ends the connection. Without it a cut link is never noticed (TCP keepalive takes minutes).
// A reply queued behind a bulk transfer (the agent's push on a loaded machine, seen to take over 5 s) is not a
// lost link: while bytes keep arriving the wait goes on, up to keepaliveMaxWait × timeout.
func (t *Transport) keepalive(c *ssh.Client, interval, timeout time.Duration) {
	defer t.wg.Done()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			return
		case <-tick.C:
		}
		reply := make(chan error, 1)
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			_, _, err := c.SendRequest("keepalive@openssh.com", true, nil)
			reply <- err
		}()
		if !t.awaitKeepalive(reply, timeout) {
			return
		}
	}
}

// awaitKeepalive waits for one keepalive reply; false when the connection is over (lost, or closed).
func (t *Transport) awaitKeepalive(reply <-chan error, timeout time.Duration) bool {
	start := time.Now()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case err := <-reply:
			if err != nil {
				t.fail(fmt.Errorf("%w: keepalive: %v", transport.ErrConnectionLost, err))
				return false
			}
			return true
		case <-timer.C:
			waited := time.Since(start)
			if t.lastRead != nil && t.lastRead.since() < timeout && waited < keepaliveMaxWait*timeout {
				timer.Reset(timeout - t.lastRead.since())
				continue
			}
			t.fail(fmt.Errorf("%w: no keepalive reply within %v", transport.ErrConnectionLost, waited.Round(100*time.Millisecond)))
			return false
		case <-t.done:
			return false
		}
	}
}
