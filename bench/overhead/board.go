package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// fakeBoard is one simulated board: an in-process SSH server on 127.0.0.1 whose exec handler answers the
// controller's deploy commands (fleet/deploy.go, fleet/transport_ssh_put.go) and plays the agent (probe, sweep) without
// starting a process. The agent is not stored, only its size and sha256, so 500 boards cost little memory.
type fakeBoard struct {
	name  string
	ln    net.Listener
	cfg   *ssh.ServerConfig
	sweep time.Duration // how long every sweep lasts, spread evenly over its points

	mu     sync.Mutex
	files  map[string]fileState // path → what was put there
	pushed int64                // bytes received by put
	wg     sync.WaitGroup
	conns  map[net.Conn]bool
}

type fileState struct {
	size int64
	sum  string
}

const fakeHome = "/home/fake"

func startBoard(name string, cfg *ssh.ServerConfig, sweep time.Duration) (*fakeBoard, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &fakeBoard{name: name, ln: ln, cfg: cfg, sweep: sweep, files: map[string]fileState{}, conns: map[net.Conn]bool{}}
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

func (b *fakeBoard) port() int { return b.ln.Addr().(*net.TCPAddr).Port }

// close stops the listener and every connection, and waits for their goroutines.
func (b *fakeBoard) close() {
	b.ln.Close()
	b.mu.Lock()
	for c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *fakeBoard) accept() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns[c] = true
		b.mu.Unlock()
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.serve(c)
			b.mu.Lock()
			delete(b.conns, c)
			b.mu.Unlock()
		}()
	}
}

func (b *fakeBoard) serve(c net.Conn) {
	defer c.Close()
	sc, chans, reqs, err := ssh.NewServerConn(c, b.cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs) // keepalive@openssh.com gets its (negative) reply
	var wg sync.WaitGroup
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.session(ch, creqs)
		}()
	}
	wg.Wait()
}

func (b *fakeBoard) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			req.Reply(req.Type == "env" || req.Type == "signal", nil)
			continue
		}
		var p struct{ Command string }
		if err := ssh.Unmarshal(req.Payload, &p); err != nil {
			req.Reply(false, nil)
			return
		}
		req.Reply(true, nil)
		go ssh.DiscardRequests(reqs) // signals after the start
		code := b.exec(ch, p.Command)
		ch.CloseWrite()
		ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(code)}))
		return
	}
}

var (
	putSizeRE = regexp.MustCompile(`!= (\d+) \]`)
	putPathRE = regexp.MustCompile(`mv -f "\$t" ('(?:[^']|'\\'')*')`)
)

// exec answers one command line and returns its exit status.
func (b *fakeBoard) exec(ch ssh.Channel, line string) int {
	if strings.HasPrefix(line, "umask 077; mkdir -p ") {
		return b.put(ch, line)
	}
	w := withoutEnv(shellWords(line))
	switch {
	case len(w) == 3 && w[0] == "sh" && w[1] == "-c" && strings.HasPrefix(w[2], "# deploy check"):
		return b.deployCheck(ch)
	case len(w) == 2 && w[0] == "uname" && w[1] == "-m":
		io.WriteString(ch, "x86_64\n")
		return 0
	case len(w) == 3 && w[0] == "sh" && w[1] == "-c" && strings.Contains(w[2], `"$HOME"`):
		io.WriteString(ch, fakeHome)
		return 0
	case len(w) == 6 && w[0] == "sh" && w[1] == "-c" && strings.HasPrefix(w[2], "umask 077"):
		return b.inspect(ch, w[5])
	case len(w) >= 2 && strings.Contains(w[0], "/agent-") && w[1] == "probe":
		return b.probe(ch)
	case len(w) == 2 && strings.Contains(w[0], "/agent-") && w[1] == "sweep":
		return b.runSweep(ch, false)
	case len(w) >= 2 && strings.Contains(w[0], "/agent-") && w[1] == "measure":
		return b.runSweep(ch, true)
	}
	fmt.Fprintf(ch.Stderr(), "fakeboard: unknown command %q\n", line)
	return 127
}

func (b *fakeBoard) inspect(ch ssh.Channel, path string) int {
	b.mu.Lock()
	f, ok := b.files[path]
	b.mu.Unlock()
	if !ok {
		io.WriteString(ch, "absent\n")
		return 0
	}
	fmt.Fprintf(ch, "size %d\nsha256 %s  -\n", f.size, f.sum)
	return 0
}

// deployCheck plays fleet's deploy check (fleet/deploycheck.go deployScript): arch and home, then the request
// "NAME SHA256" on stdin, answered with absent or the size and checksum.
func (b *fakeBoard) deployCheck(ch ssh.Channel) int {
	fmt.Fprintf(ch, "arch x86_64\nhome %s\n", fakeHome)
	line, err := readPlan(ch)
	if err != nil {
		return 0
	}
	name, _, _ := strings.Cut(strings.TrimSpace(string(line)), " ")
	return b.inspect(ch, fakeHome+"/.cache/fleet/"+name)
}

// put reads the file from stdin like `cat > "$t"` and keeps its size and sha256.
func (b *fakeBoard) put(ch ssh.Channel, line string) int {
	sm, pm := putSizeRE.FindStringSubmatch(line), putPathRE.FindStringSubmatch(line)
	if sm == nil || pm == nil {
		fmt.Fprintf(ch.Stderr(), "fakeboard: cannot read put script %q\n", line)
		return 1
	}
	want, _ := strconv.ParseInt(sm[1], 10, 64)
	path := shellWords(pm[1])[0]
	h := sha256.New()
	n, err := io.Copy(h, ch)
	b.mu.Lock()
	b.pushed += n
	b.mu.Unlock()
	if err != nil || n != want {
		fmt.Fprintf(ch.Stderr(), "size mismatch: wrote %d bytes, want %d\n", n, want)
		return 1
	}
	b.mu.Lock()
	b.files[path] = fileState{size: n, sum: hex.EncodeToString(h.Sum(nil))}
	b.mu.Unlock()
	return 0
}

func (b *fakeBoard) bytesPushed() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pushed
}

// readPlan reads the one-line JSON plan the controller sends on stdin.
func readPlan(r io.Reader) ([]byte, error) {
	br := bufio.NewReader(r)
	line, err := br.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil, err
	}
	return line, nil
}
