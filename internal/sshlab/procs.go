package sshlab

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// allPIDs lists the processes of the host.
func allPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// parentOf returns the parent pid of pid, 0 when it is gone.
func parentOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// descendants lists the children of pid, their children, and so on.
func descendants(pid int) []int {
	children := map[int][]int{}
	for _, p := range allPIDs() {
		ppid := parentOf(p)
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}

// findServer returns the first process running the program named name (sshd, dropbear) among pid and its
// descendants (ip and unshare exec or fork on the way), 0 when there is none yet.
func findServer(pid int, name string) int {
	for _, p := range append([]int{pid}, descendants(pid)...) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p)); err == nil && filepath.Base(exe) == name {
			return p
		}
	}
	return 0
}

// namespaceMembers lists the processes whose PID namespace is ns ("pid:[4026…]").
func namespaceMembers(ns string) []int {
	if ns == "" {
		return nil
	}
	var pids []int
	for _, p := range allPIDs() {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", p)); err == nil && l == ns {
			pids = append(pids, p)
		}
	}
	return pids
}

// sessionsOf lists the processes, other than those in known, whose SSH_CONNECTION says they were started by a
// connection to addr:port ("client_ip client_port server_ip server_port").
func sessionsOf(addr string, port int, known []int) []int {
	seen := map[int]bool{}
	for _, p := range known {
		seen[p] = true
	}
	suffix := fmt.Sprintf(" %s %d", addr, port)
	var pids []int
	for _, p := range allPIDs() {
		if seen[p] {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "SSH_CONNECTION="); ok && strings.HasSuffix(v, suffix) {
				pids = append(pids, p)
				break
			}
		}
	}
	return pids
}

// killUsing kills the processes whose command line names path (a stale lab's sshds, found by their config path).
func killUsing(path string) {
	for _, p := range allPIDs() {
		if args, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && strings.Contains(string(args), path+"/") {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
