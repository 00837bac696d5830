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
	"syscall"
	"time"
)

func (b *Board) writeConfig() error {
	if b.Server == "dropbear" {
		return nil // configured by its command line
	}
	var c strings.Builder
	fmt.Fprintf(&c, "ListenAddress %s\n", b.listen)
	for _, typ := range b.hostKeyTypes() {
		fmt.Fprintf(&c, "HostKey %s\n", b.hostKey(typ))
	}
	fmt.Fprintf(&c, "PidFile %s\nAuthorizedKeysFile %s\n", b.pidFile, filepath.Join(b.dir, "authorized_keys"))
	c.WriteString(`PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel ` + b.lab.logLevel + `
Subsystem sftp internal-sftp
MaxStartups 100
MaxSessions 100
PrintMotd no
PrintLastLog no
UseDNS no
PermitUserEnvironment no
AllowTcpForwarding yes
X11Forwarding no
`)
	c.WriteString(b.extraConfig)
	return os.WriteFile(b.config, []byte(c.String()), 0o644)
}

// RestartSSHD restarts the board's OpenSSH server with extra lines appended to its sshd_config, such as
// "Ciphers aes128-ctr\n" for a server that offers one cipher only; "" restores the lab's own config. Sessions in
// progress end with the old server.
func (b *Board) RestartSSHD(extra string) error {
	if b.Server == "dropbear" {
		return fmt.Errorf("restart sshd of %s: dropbear is configured by its command line", b.Name)
	}
	if err := b.KillSSHD(); err != nil {
		return err
	}
	b.mu.Lock()
	b.extraConfig = extra
	err := b.writeConfig()
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("restart sshd of %s: %w", b.Name, err)
	}
	return b.StartSSHD()
}

// sshdScript runs as the board's first process: private passwd, shadow and group (users' homes in the lab, login
// shell /bin/sh), a private /tmp, then the SSH server in the foreground. $1 is the board dir; with $2, the home
// directory $4 of the user (uid $3) is a tmpfs of size $2; with $5, /bin/sh (the login shell and every `sh`) is
// BusyBox, bind-mounted over the file /bin/sh points to; with $6, uname is the script $6 (Options.Uname); the
// server's command line follows.
const sshdScript = `set -e
mount --bind "$1/etc/passwd" /etc/passwd
mount --bind "$1/etc/shadow" /etc/shadow
mount --bind "$1/etc/group" /etc/group
mount -t tmpfs -o mode=1777,size=256m fleetlab-tmp /tmp
mkdir -p /run/sshd
if [ -n "$2" ]; then mount -t tmpfs -o "size=$2,uid=$3,gid=$3,mode=755" fleetlab-home "$4"; fi
if [ -n "$5" ]; then mount --bind "$5" "$(readlink -f /bin/sh)"; fi
if [ -n "$6" ]; then mount --bind "$6" "$(readlink -f "$(command -v uname)")"; fi
shift 6
exec "$@"`

// StartSSHD starts the board's sshd and waits until it listens.
func (b *Board) StartSSHD() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd != nil {
		return fmt.Errorf("start sshd of %s: already running (pid %d)", b.Name, b.pid)
	}
	os.Remove(b.pidFile)
	server := []string{"/usr/sbin/sshd", "-D", "-e", "-f", b.config}
	if b.Server == "dropbear" {
		// -s: no passwords; -F: foreground; -E: log to stderr.
		server = []string{"/usr/sbin/dropbear", "-F", "-E", "-s", "-p", b.listen,
			"-r", b.hostKey("ed25519") + ".dropbear", "-P", b.pidFile}
	}
	args := server
	if b.lab.root {
		args = nil
		if b.NetNS != "" {
			args = []string{"ip", "netns", "exec", b.NetNS}
		}
		args = append(args, "unshare", "--mount", "--propagation", "private", "--pid", "--fork", "--kill-child=SIGKILL",
			"--mount-proc", "/bin/sh", "-c", sshdScript, "sh", b.dir, b.lab.homeSize, strconv.Itoa(b.uid), b.Home, b.lab.busybox, b.lab.uname)
		args = append(args, server...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = b.log, b.log
	// Pdeathsig: a test binary that dies (timeout, panic) takes its sshds with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start sshd of %s: %w", b.Name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	b.cmd, b.done = cmd, done

	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-done:
			b.cmd = nil
			return fmt.Errorf("start sshd of %s: exited: %s", b.Name, strings.TrimSpace(b.log.String()))
		default:
		}
		// sshd writes its pid file after it listens.
		if data, err := os.ReadFile(b.pidFile); err == nil && len(bytes.TrimSpace(data)) > 0 {
			if pid := findServer(cmd.Process.Pid, filepath.Base(server[0])); pid > 0 {
				b.pid = pid
				if b.lab.root { // its own PID namespace
					b.ns, _ = os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
				}
				return nil
			}
		}
		if time.Now().After(deadline) {
			b.killLocked()
			return fmt.Errorf("start sshd of %s: not listening after 15s: %s", b.Name, strings.TrimSpace(b.log.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// KillSSHD kills the board's sshd and, as root, every process started through it (its PID namespace dies with
// it). It does nothing when sshd is not running.
func (b *Board) KillSSHD() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.killLocked()
}

func (b *Board) killLocked() error {
	if b.cmd == nil {
		return nil
	}
	for _, p := range b.stop {
		syscall.Kill(p, syscall.SIGCONT)
	}
	b.stop = nil
	// As root the server is the first process of its PID namespace: killing it kills the namespace, and unshare,
	// its parent, reaps it and exits. (Killing unshare as well would leave the server a zombie nobody reaps soon.)
	// Without a namespace the server's sessions, even orphaned ones, are killed one by one.
	victims := []int{b.pid}
	switch {
	case b.pid == 0:
		victims = []int{b.cmd.Process.Pid}
	case !b.lab.root:
		procs, _ := b.procsLocked(true)
		for _, p := range procs {
			victims = append(victims, p.PID)
		}
	}
	for _, p := range victims {
		syscall.Kill(p, syscall.SIGKILL)
	}
	var err error
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		syscall.Kill(b.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-b.done:
		case <-time.After(5 * time.Second):
			err = fmt.Errorf("kill sshd of %s: pid %d still running after 10s", b.Name, b.cmd.Process.Pid)
		}
	}
	// The kernel kills the rest of the PID namespace when its first process dies; wait until they are reaped.
	for deadline := time.Now().Add(5 * time.Second); b.ns != "" && len(namespaceMembers(b.ns)) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			err = errors.Join(err, fmt.Errorf("kill sshd of %s: processes %v still running after 5s", b.Name, namespaceMembers(b.ns)))
			break
		}
	}
	b.cmd, b.pid, b.ns = nil, 0, ""
	os.Remove(b.pidFile)
	return err
}
