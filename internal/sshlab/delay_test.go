package sshlab

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestLabDelay checks that Options.Delay costs every board its round-trip time: the server's banner cannot arrive
// before one round trip, and an ssh session (key exchange, authentication, channel, exec: at least four round
// trips) not before four. Lower bounds only: a loaded machine makes things slower, never faster.
func TestLabDelay(t *testing.T) {
	needSSH(t)
	const rtt = 150 * time.Millisecond
	for _, loopback := range []bool{false, true} {
		t.Run(fmt.Sprintf("loopback=%v", loopback), func(t *testing.T) {
			if !loopback && os.Geteuid() != 0 {
				t.Skip("network namespaces need root")
			}
			l := Start(t, Options{Loopback: loopback, Delay: rtt})
			if l.DelayBy != "netem" && l.DelayBy != "relay" {
				t.Fatalf("DelayBy = %q, want netem or relay", l.DelayBy)
			}
			if loopback && l.DelayBy != "relay" {
				t.Errorf("loopback lab: DelayBy = %q, want relay (no veth for netem)", l.DelayBy)
			}
			t.Logf("delay by %s", l.DelayBy)
			for _, name := range []string{"board1", "board2", "board4"} {
				b := l.Board(name)
				if b.jump == nil {
					start := time.Now()
					c, err := net.Dial("tcp", net.JoinHostPort(b.Addr, fmt.Sprint(b.Port)))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					banner, err := bufio.NewReader(c).ReadString('\n')
					took := time.Since(start)
					c.Close()
					if err != nil || !strings.HasPrefix(banner, "SSH-2.0-") {
						t.Fatalf("%s: banner %q, %v", name, banner, err)
					}
					if took < rtt {
						t.Errorf("%s: banner after %v, want at least one round trip (%v)", name, took, rtt)
					}
				}
				start := time.Now()
				if out, err := sshOut(t, l, name, "true"); err != nil {
					t.Fatalf("ssh %s: %v: %s", name, err, out)
				}
				if took, want := time.Since(start), 4*rtt; took < want {
					t.Errorf("ssh %s true took %v, want at least 4 round trips (%v)", name, took, want)
				}
			}
		})
	}
}

// TestLabDelayOff checks that a lab without Delay puts nothing between client and sshd.
func TestLabDelayOff(t *testing.T) {
	needSSH(t)
	l := Start(t, Options{Loopback: true})
	if l.DelayBy != "" || len(l.relays) != 0 {
		t.Errorf("DelayBy = %q with %d relays, want none", l.DelayBy, len(l.relays))
	}
	for _, b := range l.Boards {
		if want := fmt.Sprintf("%s:%d", b.Addr, b.Port); b.listen != want {
			t.Errorf("%s: clients reach %s, sshd listens on %s", b.Name, want, b.listen)
		}
	}
}
