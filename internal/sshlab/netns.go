package sshlab

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// lockFile serialises subnet choice between test binaries running at the same time.
const lockFile = "/run/lock/fleet-sshlab.lock"

// ip runs the ip command.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func ipLink(dev, state string) error { return ip("link", "set", dev, state) }

// setupBridge creates the lab's bridge with the first free 10.200.X.1/24.
func (l *Lab) setupBridge() error {
	if err := os.MkdirAll(filepath.Dir(lockFile), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(lockFile, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", lockFile, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)

	out, err := exec.Command("ip", "-o", "-4", "addr", "show").Output()
	if err != nil {
		return fmt.Errorf("ip addr show: %w", err)
	}
	used := map[int]bool{}
	for _, m := range regexp.MustCompile(`inet 10\.200\.(\d+)\.`).FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[1])
		used[n] = true
	}
	start := os.Getpid() % 200
	for i := range 250 {
		if x := (start+i)%250 + 1; !used[x] {
			l.subnet = x
			break
		}
	}
	if l.subnet == 0 {
		return fmt.Errorf("no free subnet 10.200.X.0/24")
	}
	l.bridge = "flbr" + strings.TrimPrefix(l.id, "fleet")
	if err := ip("link", "add", l.bridge, "type", "bridge"); err != nil {
		l.bridge = ""
		return err
	}
	if err := ip("addr", "add", fmt.Sprintf("10.200.%d.1/24", l.subnet), "dev", l.bridge); err != nil {
		return err
	}
	return ipLink(l.bridge, "up")
}

// addNetNS creates a network namespace linked to the bridge by a veth pair, with addr on its eth0.
func (l *Lab) addNetNS(ns, veth, addr string) error {
	if err := ip("netns", "add", ns); err != nil {
		return err
	}
	steps := [][]string{
		{"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
		{"link", "set", veth, "master", l.bridge, "up"},
		{"-n", ns, "addr", "add", addr + "/24", "dev", "eth0"},
		{"-n", ns, "link", "set", "eth0", "up"},
		{"-n", ns, "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return err
		}
	}
	return nil
}

// staleName matches what a lab names: fleet<pid>x<n>-b<k> namespaces, flbr<pid>x<n> bridges, flv<pid>x<n>b<k>
// veths and fleet-sshlab-<pid>-* directories.
var staleName = regexp.MustCompile(`^(?:fleet|flbr|flv|fleet-sshlab-)(\d+)[x-]`)

// deadOwner returns whether name belongs to a lab of a process that no longer exists.
func deadOwner(name string) bool {
	m := staleName.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	pid, err := strconv.Atoi(m[1])
	if err != nil || pid == os.Getpid() {
		return false
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// cleanStale removes what labs of dead test processes left: their sshds, namespaces, links and directories.
func cleanStale(t testing.TB) {
	for _, base := range []string{"/var/tmp", os.TempDir()} {
		dirs, _ := filepath.Glob(filepath.Join(base, "fleet-sshlab-*"))
		for _, d := range dirs {
			if deadOwner(filepath.Base(d)) {
				killUsing(d)
				t.Logf("sshlab: removing stale %s", d)
				os.RemoveAll(d)
			}
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	if out, err := exec.Command("ip", "netns", "list").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || !deadOwner(f[0]) {
				continue
			}
			if pids, err := exec.Command("ip", "netns", "pids", f[0]).Output(); err == nil {
				for _, p := range strings.Fields(string(pids)) {
					if n, err := strconv.Atoi(p); err == nil {
						syscall.Kill(n, syscall.SIGKILL)
					}
				}
			}
			t.Logf("sshlab: removing stale netns %s", f[0])
			ip("netns", "del", f[0])
		}
	}
	if out, err := exec.Command("ip", "-o", "link", "show").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line) // "7: flbr123x1: <…"
			if len(f) < 2 {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			if deadOwner(name) {
				t.Logf("sshlab: removing stale link %s", name)
				ip("link", "del", name)
			}
		}
	}
}
