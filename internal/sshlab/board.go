package sshlab

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fleetlab/fleet/inventory"
)

// fleetlabUID is board2's non-root user; it exists only in the board's private /etc/passwd.
const fleetlabUID = 4242

// Board is one sshd of the lab.
type Board struct {
	Name         string // board1 … board4
	Addr         string // address the client connects to (board4's as seen from its jump host, board1)
	Port         int
	User         string // who logs in
	Home         string // User's home directory on the board (a host path as well)
	IdentityFile string // the lab's client key
	KnownHosts   string // the lab's known_hosts
	ProxyJump    string // "user@addr:port" of the jump host; empty when reached directly
	NetNS        string // network namespace the sshd runs in; empty in loopback mode
	Server       string // "openssh", or "dropbear" for board5

	lab      *Lab
	k        int
	uid      int
	dir      string
	config   string
	pidFile  string
	veth     string // host side of the board's link (board4: board1's)
	ownNetNS bool   // the lab created NetNS for this board
	listen   string // addr:port the server listens on; Addr:Port differ from it behind a delay relay
	jump     *Board

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	pid  int         // sshd's pid in the host's PID namespace
	log  *SyncBuffer // sshd's stderr (LogLevel ERROR)
	stop []int       // pids stopped by CutLink in loopback mode
	ns   string      // sshd's PID namespace ("pid:[4026…]"), to find the board's processes

	extraConfig string // appended to sshd_config (RestartSSHD)
}

// newBoard prepares board k: directories, users, host keys, address and sshd config.
func (l *Lab) newBoard(k int) (*Board, error) {
	b := &Board{lab: l, k: k, Name: fmt.Sprintf("board%d", k), IdentityFile: l.Identity, log: &SyncBuffer{}}
	b.dir = filepath.Join(l.Dir, b.Name)
	b.config = filepath.Join(b.dir, "sshd_config")
	b.pidFile = filepath.Join(b.dir, "sshd.pid")
	b.Server = "openssh"
	if k == 5 {
		b.Server = "dropbear"
	}
	b.User, b.uid, b.Home = l.labUser(k)
	uid := b.uid
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, err
	}
	if l.root {
		if err := os.MkdirAll(b.Home, 0o755); err != nil {
			return nil, err
		}
		if err := os.Chown(b.Home, uid, uid); err != nil {
			return nil, err
		}
		if err := writeEtc(filepath.Join(b.dir, "etc"), b.Home, uid); err != nil {
			return nil, err
		}
	}
	pub, err := os.ReadFile(l.Identity + ".pub")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(b.dir, "authorized_keys"), pub, 0o644); err != nil {
		return nil, err
	}
	if b.Server == "dropbear" {
		// Dropbear reads only ~/.ssh/authorized_keys, and refuses it when others may write it or its directories.
		ssh := filepath.Join(b.Home, ".ssh")
		if err := os.MkdirAll(ssh, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(ssh, "authorized_keys"), pub, 0o600); err != nil {
			return nil, err
		}
	}
	if err := b.genHostKeys(); err != nil {
		return nil, err
	}

	if k == 4 {
		b.jump = l.Boards[0]
		b.ProxyJump = fmt.Sprintf("%s@%s:%d", b.jump.User, b.jump.Addr, b.jump.Port)
	}
	switch {
	case l.Namespaced && k == 4:
		// Inside board1's network namespace, on its loopback: reachable only through board1.
		b.NetNS, b.veth, b.Addr, b.Port = b.jump.NetNS, b.jump.veth, "127.0.0.1", 2200
	case l.Namespaced:
		b.NetNS = fmt.Sprintf("%s-b%d", l.id, k)
		b.veth = fmt.Sprintf("flv%sb%d", strings.TrimPrefix(l.id, "fleet"), k)
		b.Addr, b.Port = fmt.Sprintf("10.200.%d.%d", l.subnet, 10+k), 22
		if err := l.addNetNS(b.NetNS, b.veth, b.Addr); err != nil {
			return nil, err
		}
		b.ownNetNS = true
	default:
		b.Addr = "127.0.0.1"
		if b.Port, err = freePort(); err != nil {
			return nil, err
		}
	}
	b.listen = fmt.Sprintf("%s:%d", b.Addr, b.Port)
	if l.delay > 0 && b.jump == nil {
		// board4 is reached through board1, whose link is delayed already.
		if err := l.delayLink(b); err != nil {
			return nil, fmt.Errorf("delay: %w", err)
		}
	}
	return b, b.writeConfig()
}

// hostKey is the path of the board's host private key of that type.
func (b *Board) hostKey(typ string) string {
	return filepath.Join(b.dir, "ssh_host_"+typ+"_key")
}

// hostKeyTypes: board1 offers ECDSA besides ed25519, which known_hosts does not pin.
func (b *Board) hostKeyTypes() []string {
	if b.k == 1 {
		return []string{"ecdsa", "ed25519"}
	}
	return []string{"ed25519"}
}

func (b *Board) genHostKeys() error {
	for _, typ := range b.hostKeyTypes() {
		os.Remove(b.hostKey(typ))
		os.Remove(b.hostKey(typ) + ".pub")
		if err := keygen(b.hostKey(typ), typ); err != nil {
			return err
		}
		if b.Server == "dropbear" {
			out, err := exec.Command("dropbearconvert", "openssh", "dropbear", b.hostKey(typ), b.hostKey(typ)+".dropbear").CombinedOutput()
			if err != nil {
				return fmt.Errorf("dropbearconvert: %w: %s", err, out)
			}
		}
	}
	return nil
}

// PID is the sshd's pid (in the host's PID namespace), 0 when it is not running.
func (b *Board) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pid
}

// Log is what sshd printed on stderr (LogLevel ERROR).
func (b *Board) Log() string { return b.log.String() }

// SessionsOpened is how many session channels clients have opened on an OpenSSH board so far, from its log
// (Options.LogSessions): one per command run, file put or shell.
func (b *Board) SessionsOpened() int {
	return strings.Count(b.log.String(), "server_input_channel_open: ctype session")
}

// ChangeHostKey gives the board new host keys and restarts its sshd; known_hosts keeps the old ones.
func (b *Board) ChangeHostKey() error {
	if err := b.KillSSHD(); err != nil {
		return err
	}
	if err := b.genHostKeys(); err != nil {
		return fmt.Errorf("change host key of %s: %w", b.Name, err)
	}
	return b.StartSSHD()
}

// CutLink makes the board unreachable without closing anything, like a pulled cable: its veth goes down (board4
// shares board1's link). In loopback mode its processes are stopped (SIGSTOP) instead.
func (b *Board) CutLink() error {
	if b.veth != "" {
		return ipLink(b.veth, "down")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	procs, err := b.procsLocked(true)
	if err != nil {
		return fmt.Errorf("cut link of %s: %w", b.Name, err)
	}
	for _, p := range procs {
		if syscall.Kill(p.PID, syscall.SIGSTOP) == nil {
			b.stop = append(b.stop, p.PID)
		}
	}
	return nil
}

// RestoreLink undoes CutLink.
func (b *Board) RestoreLink() error {
	if b.veth != "" {
		return ipLink(b.veth, "up")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.stop {
		syscall.Kill(p, syscall.SIGCONT)
	}
	b.stop = nil
	return nil
}

// Exec runs a command on the board, as root inside its namespaces (mount, network, PID: `ps` lists the board's
// processes only, /tmp is the board's), else on the host. It returns stdout and stderr together.
func (b *Board) Exec(args ...string) ([]byte, error) {
	pid := b.PID()
	if !b.lab.root {
		return exec.Command(args[0], args[1:]...).CombinedOutput()
	}
	if pid == 0 {
		return nil, fmt.Errorf("exec on %s: sshd is not running", b.Name)
	}
	ns := []string{"nsenter", "-t", strconv.Itoa(pid), "-m", "-p"}
	if b.NetNS != "" {
		ns = append(ns, "-n")
	}
	return exec.Command(ns[0], append(append(ns[1:], "--"), args...)...).CombinedOutput()
}

// Proc is a process on a board.
type Proc struct {
	PID  int    // in the host's PID namespace
	Args string // command line, arguments separated by spaces
}

// Processes lists what runs on the board besides its listening sshd: sessions and the commands they started. A
// test asserts it is empty once its work is done (no orphan keeps a board busy).
func (b *Board) Processes() ([]Proc, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.procsLocked(false)
}

// WaitIdle polls Processes until the board runs nothing but its sshd, for at most within, and returns what still
// runs then: nil once idle. Sessions end shortly after their client does, so a test that asserts no orphan is left
// must give them that moment.
func (b *Board) WaitIdle(within time.Duration) ([]Proc, error) {
	deadline := time.Now().Add(within)
	for {
		procs, err := b.Processes()
		if err != nil || len(procs) == 0 || time.Now().After(deadline) {
			return procs, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *Board) procsLocked(withSSHD bool) ([]Proc, error) {
	if b.pid == 0 {
		return nil, errors.New("sshd is not running")
	}
	var pids []int
	if b.lab.root {
		pids = namespaceMembers(b.ns)
	} else {
		// Without a PID namespace, a leftover whose shell exited is no descendant of sshd any more; its environment
		// still names the board's server address.
		pids = append([]int{b.pid}, descendants(b.pid)...)
		pids = append(pids, sessionsOf(b.Addr, b.Port, pids)...)
	}
	var procs []Proc
	for _, p := range pids {
		if p == b.pid && !withSSHD {
			continue
		}
		args, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if err != nil {
			continue // gone meanwhile
		}
		procs = append(procs, Proc{PID: p, Args: strings.TrimSpace(strings.ReplaceAll(string(args), "\x00", " "))})
	}
	return procs, nil
}

// Inventory returns the board as the inventory package describes it, for the SSH transport (transport/ssh.Dial).
func (b *Board) Inventory() inventory.Board {
	return inventory.Board{Name: b.Name, Host: b.Addr, Port: b.Port, User: b.User, IdentityFile: b.IdentityFile,
		KnownHosts: b.KnownHosts, ProxyJump: b.ProxyJump, Tags: []string{"sshlab"}}
}

// SyncBuffer is a bytes.Buffer safe for a writer goroutine (a child process's output) and concurrent readers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
