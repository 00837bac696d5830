package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Freeze stops the server and every backend with SIGSTOP, as a hung host, a full hypervisor or a dead network
// path would: connections stay open, nothing answers, and new connections are accepted by the kernel but never
// served. Thaw resumes them; Stop thaws first.
func (s *Server) Freeze() error { return s.signalAll(syscall.SIGSTOP) }

// Thaw resumes a server stopped by Freeze.
func (s *Server) Thaw() error { return s.signalAll(syscall.SIGCONT) }

// signalAll sends sig to the postmaster and its children (backends, checkpointer, walwriter, ...).
func (s *Server) signalAll(sig syscall.Signal) error {
	if s.cmd == nil {
		return fmt.Errorf("signal postgresql on port %d: not running", s.Port)
	}
	pid := s.cmd.Process.Pid
	pids := []int{pid}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if child, err := strconv.Atoi(filepath.Base(filepath.Dir(st))); err == nil {
				pids = append(pids, child)
			}
		}
	}
	for _, p := range pids {
		if err := syscall.Kill(p, sig); err != nil && p == pid {
			return fmt.Errorf("signal postgresql (pid %d): %w", p, err)
		}
	}
	return nil
}
