package sshlab

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Options configures Start.
type Options struct {
	// Loopback puts the boards on 127.0.0.1 ports even as root, without network namespaces.
	Loopback bool
	// HomeSize, when set (e.g. "1m"), puts each board's home directory on a tmpfs of that size inside the board's
	// mount namespace, to test a full disk. It needs root; without it the test is skipped.
	HomeSize string
	// Dropbear adds board5: root logging in to a Dropbear SSH server (as on many embedded boards) instead of
	// OpenSSH. It needs root and dropbear-bin; without them the test is skipped (see DropbearInstalled).
	Dropbear bool
	// Delay adds this round-trip time to each board's link (board4's through board1's), as a WAN or a slow
	// lab network would: with tc netem on the board's veth pair where the kernel has sch_netem, else with a TCP
	// relay in the test process that holds every chunk for half of it in each direction (see DelayBy).
	Delay time.Duration
	// BusyBoxSh makes /bin/sh of every board BusyBox's ash (/bin/busybox, Debian's busybox package), bind-mounted
	// in the board's mount namespace: the login shell and every `sh` the board runs, as on many embedded boards.
	// It needs root and /bin/busybox; without them the test is skipped.
	BusyBoxSh bool
	// Uname makes each board's uname print Machine for -m and Release for -r (the others as the host's does),
	// to stand for a board fleet's agent cannot run on. It needs root; without it the test is skipped.
	Uname FakeUname
	// LogSessions raises OpenSSH's LogLevel to DEBUG1, so that each board's Log has a line per session channel
	// the client opens (SessionsOpened counts them): what a board's fixed cost is made of.
	LogSessions bool
}

// FakeUname is what Options.Uname has uname print; an empty field is the host's own.
type FakeUname struct{ Machine, Release string }

// DropbearInstalled reports whether Options.Dropbear can be honoured on this machine.
func DropbearInstalled() bool {
	for _, tool := range []string{"/usr/sbin/dropbear", "dropbearconvert"} {
		if _, err := exec.LookPath(tool); err != nil {
			return false
		}
	}
	return os.Geteuid() == 0
}

// Lab is a set of running sshd boards.
type Lab struct {
	Dir        string   // everything the lab writes: keys, configs, the boards' home directories
	Identity   string   // the client's ed25519 private key, authorized on every board
	KnownHosts string   // pins each board's ed25519 host key (board1's ECDSA key is deliberately absent)
	SSHConfig  string   // an ssh_config with a Host entry per board, for the system ssh client (ssh -F)
	Boards     []*Board // board1 … board4
	Namespaced bool     // boards live in network namespaces (root); false: 127.0.0.1 ports
	DelayBy    string   // how Options.Delay is applied: "netem", "relay", or "" without a delay

	t      testing.TB
	id     string // unique per lab: fleet<pid>x<n>; stale-lab cleanup parses the pid back out of it
	bridge string
	subnet int // X in 10.200.X.0/24
	root   bool
	// homeSize is Options.HomeSize.
	homeSize string
	busybox  string // Options.BusyBoxSh: the busybox binary; "" for the host's /bin/sh
	uname    string // Options.Uname: the script bind-mounted over uname; "" for the host's
	delay    time.Duration
	logLevel string // sshd's LogLevel
	relays   []*delayRelay
}

// labSeq numbers the labs of one test process so that their names differ.
var labSeq atomic.Int32

// Start starts the lab's boards and registers their removal with t.Cleanup. It skips the test when sshd or the
// tools the lab needs are missing.
func Start(t testing.TB, opts Options) *Lab {
	t.Helper()
	root := os.Geteuid() == 0
	namespaced := root && !opts.Loopback
	checkPrerequisites(t, opts, root, namespaced)
	cleanStale(t)
	l := newLab(t, opts, root, namespaced)
	l.Identity = filepath.Join(l.Dir, "id_ed25519")
	if err := keygen(l.Identity, "ed25519"); err != nil {
		t.Fatalf("sshlab: client key: %v", err)
	}
	if namespaced {
		if err := l.setupBridge(); err != nil {
			t.Fatalf("sshlab: %v", err)
		}
	}
	n := 4
	if opts.Dropbear {
		n = 5
	}
	for k := 1; k <= n; k++ {
		b, err := l.newBoard(k)
		if err != nil {
			t.Fatalf("sshlab: board%d: %v", k, err)
		}
		l.Boards = append(l.Boards, b)
	}
	l.KnownHosts = filepath.Join(l.Dir, "known_hosts")
	l.SSHConfig = filepath.Join(l.Dir, "ssh_config")
	if err := l.writeClientFiles(); err != nil {
		t.Fatalf("sshlab: %v", err)
	}
	for _, b := range l.Boards {
		b.KnownHosts = l.KnownHosts
		if err := b.StartSSHD(); err != nil {
			t.Fatalf("sshlab: %v", err)
		}
	}
	return l
}

// checkPrerequisites skips the test when an option needs root or a package the machine lacks, or the lab's
// tools are missing (namespaced: the lab's own network namespaces, which need ip), and fails it on an option
// no lab can have.
func checkPrerequisites(t testing.TB, opts Options, root, namespaced bool) {
	t.Helper()
	if opts.Dropbear && !DropbearInstalled() {
		t.Skip("sshlab: Options.Dropbear needs root and dropbear-bin (apt-get install dropbear-bin)")
	}
	if opts.Delay < 0 {
		t.Fatalf("sshlab: Options.Delay %v: want a round-trip time of 0 or more", opts.Delay)
	}
	if opts.HomeSize != "" && !root {
		t.Skip("sshlab: Options.HomeSize needs root (a tmpfs in the board's mount namespace)")
	}
	if opts.Uname != (FakeUname{}) && !root {
		t.Skip("sshlab: Options.Uname needs root (a bind mount in the board's mount namespace)")
	}
	if opts.BusyBoxSh && (!root || busyboxFor(opts) == "") {
		t.Skip("sshlab: Options.BusyBoxSh needs root and /bin/busybox (apt-get install busybox)")
	}
	needs := []string{"/usr/sbin/sshd", "ssh-keygen"}
	if root {
		needs = append(needs, "unshare", "nsenter", "mount")
	}
	if namespaced {
		needs = append(needs, "ip")
	}
	var missing []string
	for _, n := range needs {
		if _, err := exec.LookPath(n); err != nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Skipf("sshlab: %s not found (apt-get install openssh-server openssh-client iproute2 util-linux mount)", strings.Join(missing, ", "))
	}
}

// newLab makes the lab's directory (removed, with everything the lab started, by t.Cleanup) and, with
// Options.Uname, the fake uname its boards will see.
func newLab(t testing.TB, opts Options, root, namespaced bool) *Lab {
	t.Helper()
	pid := os.Getpid()
	l := &Lab{t: t, root: root, Namespaced: namespaced, homeSize: opts.HomeSize, busybox: busyboxFor(opts), delay: opts.Delay, logLevel: "ERROR", id: fmt.Sprintf("fleet%dx%d", pid, labSeq.Add(1))}
	if opts.LogSessions {
		l.logLevel = "DEBUG1"
	}
	base := os.TempDir()
	if root {
		// Not under /tmp: each board mounts its own tmpfs there, which would hide the lab's files from its sshd.
		base = "/var/tmp"
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("fleet-sshlab-%d-", pid))
	if err != nil {
		t.Fatalf("sshlab: %v", err)
	}
	// The directory is traversable: board2's user reads its authorized_keys and lives in its home below it.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("sshlab: %v", err)
	}
	l.Dir = dir
	t.Cleanup(l.close)
	if opts.Uname != (FakeUname{}) {
		if l.uname, err = writeFakeUname(dir, opts.Uname); err != nil {
			t.Fatalf("sshlab: %v", err)
		}
	}
	return l
}

// Board returns the board with that name, or nil.
func (l *Lab) Board(name string) *Board {
	for _, b := range l.Boards {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// close stops every sshd and removes the namespaces, links and files of the lab.
func (l *Lab) close() {
	for _, b := range l.Boards {
		if err := b.KillSSHD(); err != nil {
			l.t.Logf("sshlab: %v", err)
		}
	}
	for _, r := range l.relays {
		r.close()
	}
	if l.Namespaced {
		for _, b := range l.Boards {
			if b.ownNetNS {
				// Deleting the veth is synchronous; the kernel tears a namespace's devices down lazily.
				if err := ip("link", "del", b.veth); err != nil {
					l.t.Logf("sshlab: %v", err)
				}
				if out, err := exec.Command("ip", "netns", "del", b.NetNS).CombinedOutput(); err != nil {
					l.t.Logf("sshlab: ip netns del %s: %v: %s", b.NetNS, err, out)
				}
			}
		}
		if l.bridge != "" {
			if out, err := exec.Command("ip", "link", "del", l.bridge).CombinedOutput(); err != nil {
				l.t.Logf("sshlab: ip link del %s: %v: %s", l.bridge, err, out)
			}
		}
	}
	if l.Dir != "" {
		if err := os.RemoveAll(l.Dir); err != nil {
			l.t.Logf("sshlab: %v", err)
		}
	}
}

// labUser is who logs in on board k: root or, on board2, the non-root fleetlab. Without root every board logs in
// as the current user.
func (l *Lab) labUser(k int) (name string, uid int, home string) {
	if !l.root {
		u, err := user.Current()
		if err != nil {
			l.t.Fatalf("sshlab: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		return u.Username, uid, u.HomeDir
	}
	if k == 2 {
		return "fleetlab", fleetlabUID, filepath.Join(l.Dir, "board2", "home", "fleetlab")
	}
	return "root", 0, filepath.Join(l.Dir, fmt.Sprintf("board%d", k), "home", "root")
}

// writeClientFiles writes known_hosts (ed25519 host keys only) and ssh_config.
func (l *Lab) writeClientFiles() error {
	var kh, cfg strings.Builder
	for _, b := range l.Boards {
		key, err := os.ReadFile(b.hostKey("ed25519") + ".pub")
		if err != nil {
			return err
		}
		f := strings.Fields(string(key))
		fmt.Fprintf(&kh, "%s %s %s\n", knownHostsName(b.Addr, b.Port), f[0], f[1])
		fmt.Fprintf(&cfg, "Host %s\n  HostName %s\n  Port %d\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n"+
			"  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  BatchMode yes\n"+
			"  ConnectTimeout 10\n  LogLevel ERROR\n", b.Name, b.Addr, b.Port, b.User, l.Identity, l.KnownHosts)
		if b.jump != nil {
			fmt.Fprintf(&cfg, "  ProxyJump %s\n", b.jump.Name)
		}
	}
	if err := os.WriteFile(l.KnownHosts, []byte(kh.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(l.SSHConfig, []byte(cfg.String()), 0o644)
}

// knownHostsName is how known_hosts names a host: "addr", or "[addr]:port" off port 22.
func knownHostsName(addr string, port int) string {
	if port == 22 {
		return addr
	}
	return fmt.Sprintf("[%s]:%d", addr, port)
}

// SSH returns a command running the system ssh client against the board with the lab's ssh_config:
// ssh -F SSHConfig NAME REMOTE...
func (l *Lab) SSH(name string, remote ...string) *exec.Cmd {
	return exec.Command("ssh", append([]string{"-F", l.SSHConfig, name}, remote...)...)
}

// BoardsTOML returns a boards.toml inventory of the lab's boards, tagged "sshlab"; board4 has a proxy_jump
// through board1.
func (l *Lab) BoardsTOML() string {
	var s strings.Builder
	fmt.Fprintf(&s, "# sshlab %s\n", l.id)
	for _, b := range l.Boards {
		fmt.Fprintf(&s, "\n[boards.%s]\nhost = %q\nport = %d\nuser = %q\nidentity_file = %q\nknown_hosts = %q\ntags = [\"sshlab\"]\n",
			b.Name, b.Addr, b.Port, b.User, b.IdentityFile, b.KnownHosts)
		if b.ProxyJump != "" {
			fmt.Fprintf(&s, "proxy_jump = %q\n", b.ProxyJump)
		}
	}
	return s.String()
}

// busyboxFor is the BusyBox binary Options.BusyBoxSh mounts as /bin/sh: "" when not asked for or not installed.
func busyboxFor(opts Options) string {
	if !opts.BusyBoxSh {
		return ""
	}
	if fi, err := os.Stat("/bin/busybox"); err == nil && fi.Mode().IsRegular() {
		return "/bin/busybox"
	}
	return ""
}

// writeFakeUname writes the uname Options.Uname asks for into dir: a copy of the real one beside a script that
// answers -m and -r itself.
func writeFakeUname(dir string, u FakeUname) (string, error) {
	real, err := exec.LookPath("uname")
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return "", err
	}
	copyPath := filepath.Join(dir, "uname.real")
	if err := os.WriteFile(copyPath, b, 0o755); err != nil {
		return "", err
	}
	script := "#!/bin/sh\ncase \"$1\" in\n"
	if u.Machine != "" {
		script += fmt.Sprintf("-m) echo %q; exit 0;;\n", u.Machine)
	}
	if u.Release != "" {
		script += fmt.Sprintf("-r) echo %q; exit 0;;\n", u.Release)
	}
	script += "esac\nexec " + copyPath + " \"$@\"\n"
	path := filepath.Join(dir, "uname")
	return path, os.WriteFile(path, []byte(script), 0o755)
}
