package fleet

import (
	"fmt"
	"time"

	"golang.org/x/crypto/ssh"
)

// keepalive sends keepalive@openssh.com every interval; an error or no reply within timeout ends the connection.
// Without it a cut link is never noticed (TCP keepalive takes minutes).
func (t *SSHTransport) keepalive(c *ssh.Client, interval, timeout time.Duration) {
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
		timer := time.NewTimer(timeout)
		select {
		case err := <-reply:
			timer.Stop()
			if err != nil {
				t.fail(fmt.Errorf("%w: keepalive: %v", ErrConnectionLost, err))
				return
			}
		case <-timer.C:
			t.fail(fmt.Errorf("%w: no keepalive reply within %v", ErrConnectionLost, timeout))
			return
		case <-t.done:
			timer.Stop()
			return
		}
	}
}
