package agent

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// rusageThread asks getrusage for the calling thread only (Linux 2.6.26+).
const rusageThread = unix.RUSAGE_THREAD

// childSysProcAttr puts a child in its own process group, and has the kernel kill it when the agent dies, even
// of SIGKILL (OOM, kill -9), so that no openssl keeps a board busy.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
