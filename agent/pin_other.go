//go:build !linux

package agent

import (
	"errors"
	"os/exec"
)

// startPinned: CPU affinity is set the Linux way (pin_linux.go); elsewhere a pinned point is refused.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	return errors.New("pinning to CPUs is Linux only")
}

// onPinnedThread: see startPinned.
func onPinnedThread(cpus []int, fn func()) (string, bool, error) {
	return "", false, errors.New("pinning to CPUs is Linux only")
}
