package store

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// processSpace names where this process's PID means this process: the kernel's boot (boot_id changes at every
// boot) and the PID namespace (containers on one kernel have their own). "" when either cannot be read.
func processSpace() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + "/" + ns
}

// processGone reports that no process of this PID namespace has pid (kill(pid, 0) fails with ESRCH). A process
// this one may not signal (EPERM) exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
