package agent

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startPinned starts cmd with its CPU affinity set to cpus (pin.go says why this way). The thread that forks is
// the only one whose mask changes, and only for the fork; if its old mask cannot be put back, the thread is left
// locked, and the runtime ends it with the goroutine instead of reusing it with the wrong mask.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || c > maxPinCPU {
			return fmt.Errorf("pin to CPU %d: past %d", c, maxPinCPU)
		}
		set.Set(c)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if err := unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("pin: sched_getaffinity: %w", err)
			return
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("pin: sched_setaffinity: %w", err)
			return
		}
		err := cmd.Start()
		if unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// onPinnedThread runs fn on an OS thread of its own pinned to cpus (kcapi measures in the agent's own process)
// and returns the thread's /proc status as the kernel printed it while fn ran (err: why it could not be read).
// ran is false, and err says why, when the thread could not be pinned: fn did not run. fn runs on a new goroutine
// so that, if the thread's old mask cannot be put back, the thread ends with it and no later work inherits it.
func onPinnedThread(cpus []int, fn func()) (status string, ran bool, err error) {
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || c > maxPinCPU {
			return "", false, fmt.Errorf("pin to CPU %d: past %d", c, maxPinCPU)
		}
		set.Set(c)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		var old unix.CPUSet
		if err = unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			err = fmt.Errorf("pin: sched_getaffinity: %w", err)
			return
		}
		if err = unix.SchedSetaffinity(0, &set); err != nil {
			runtime.UnlockOSThread()
			err = fmt.Errorf("pin: sched_setaffinity: %w", err)
			return
		}
		b, rerr := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", unix.Gettid()))
		status, err, ran = string(b), rerr, true
		fn()
		if unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
	}()
	<-done
	return status, ran, err
}
