//go:build unix

package fleet

import (
	"syscall"
	"time"
)

// processCPU is the controller process's user+system CPU time so far; negative when unknown. Mode ssh reads it
// around each transfer: the controller's side of the cipher runs in x/crypto/ssh's goroutines, which no
// per-thread counter can follow, so the whole process is what is measured (see cpuPct).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
