package agent

import (
	"fmt"
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

// statStamp is a file's size, inode, device numbers, mtime and ctime, for the probe cache's stamp.
func statStamp(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d %d %d %d.%09d %d.%09d", st.Size, st.Ino, st.Dev, st.Rdev,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), nil
}
