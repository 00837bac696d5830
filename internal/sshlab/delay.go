package sshlab

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// delayLink gives board b's link the lab's round-trip delay: tc netem on both ends of its veth pair (half the
// delay each way) when the lab has namespaces and the kernel has sch_netem, else a delayRelay in front of its
// sshd, which then becomes the board's Addr and Port. Either way every round trip of a session costs the delay,
// which is what a benchmark of round trips needs.
func (l *Lab) delayLink(b *Board) error {
	if b.veth != "" {
		ok, err := netem(b, l.delay/2)
		if err != nil {
			return err
		}
		if ok {
			l.DelayBy = "netem"
			return nil
		}
	}
	r, err := startDelayRelay(b.listen, l.delay)
	if err != nil {
		return err
	}
	l.relays = append(l.relays, r)
	l.DelayBy = "relay"
	addr := r.ln.Addr().(*net.TCPAddr)
	b.Addr, b.Port = addr.IP.String(), addr.Port
	return nil
}

// netem adds oneWay of delay to each direction of b's link. It returns false, without error, when tc is
// missing or the kernel has no netem qdisc (seen: a Firecracker kernel built without CONFIG_NET_SCH_NETEM).
func netem(b *Board, oneWay time.Duration) (bool, error) {
	if _, err := exec.LookPath("tc"); err != nil {
		return false, nil
	}
	us := strconv.FormatInt(oneWay.Microseconds(), 10) + "us"
	for _, args := range [][]string{
		{"qdisc", "add", "dev", b.veth, "root", "netem", "delay", us},
		{"-n", b.NetNS, "qdisc", "add", "dev", "eth0", "root", "netem", "delay", us},
	} {
		out, err := exec.Command("tc", args...).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "qdisc kind is unknown") {
				return false, nil
			}
			return false, fmt.Errorf("tc %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return true, nil
}

// delayRelay forwards TCP connections to a target, holding every chunk for half the round-trip time in each
// direction, and the connection to the target for half of it too (the SYN's trip). Unlike netem it does not delay
// the client's own TCP handshake, so a connection costs ½ RTT less than over a real link; every round trip after
// that costs the full RTT, for any client alike.
type delayRelay struct {
	ln     net.Listener
	target string
	oneWay time.Duration

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
	done  bool
}

func startDelayRelay(target string, rtt time.Duration) (*delayRelay, error) {
	host, _, err := net.SplitHostPort(target)
	if err != nil {
		return nil, err
	}
	listenHost := "127.0.0.1"
	if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
		// A namespaced board: listen on the host's own address on the lab's bridge (10.200.X.1).
		listenHost = bridgeAddr(ip)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(listenHost, "0"))
	if err != nil {
		return nil, fmt.Errorf("delay relay for %s: %w", target, err)
	}
	r := &delayRelay{ln: ln, target: target, oneWay: rtt / 2, conns: map[net.Conn]bool{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// bridgeAddr is X.Y.Z.1 of a board's X.Y.Z.N.
func bridgeAddr(ip net.IP) string {
	v4 := ip.To4()
	if v4 == nil {
		return "127.0.0.1"
	}
	return net.IPv4(v4[0], v4[1], v4[2], 1).String()
}

func (r *delayRelay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.serve(c)
		}()
	}
}

// track adds c to the open connections, or reports false once the relay is closing.
func (r *delayRelay) track(c net.Conn, add bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !add {
		delete(r.conns, c)
		return true
	}
	if r.done {
		return false
	}
	r.conns[c] = true
	return true
}

func (r *delayRelay) serve(client net.Conn) {
	defer client.Close()
	if !r.track(client, true) {
		return
	}
	defer r.track(client, false)
	time.Sleep(r.oneWay)
	board, err := net.Dial("tcp", r.target)
	if err != nil {
		return
	}
	defer board.Close()
	if !r.track(board, true) {
		return
	}
	defer r.track(board, false)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.pipe(board, client) }()
	go func() { defer wg.Done(); r.pipe(client, board) }()
	wg.Wait()
}

// chunk is data read at one moment, to be written oneWay later.
type chunk struct {
	b  []byte
	at time.Time
}

// pipe copies src to dst, each chunk oneWay after it was read, and passes src's end on as a half close.
func (r *delayRelay) pipe(dst, src net.Conn) {
	q := make(chan chunk, 256)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{b: buf[:n], at: time.Now().Add(r.oneWay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.b); err != nil {
			src.Close() // the reader above ends, and with it q
			for range q {
			}
			return
		}
	}
	time.Sleep(r.oneWay) // the FIN travels too
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	} else {
		dst.Close()
	}
}

// close stops accepting, ends every relayed connection and waits for the relay's goroutines.
func (r *delayRelay) close() {
	r.ln.Close()
	r.mu.Lock()
	r.done = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
