package main

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// simFiles is how many file descriptors the board simulator holds at most with n boards: per board its
// listener, the controller's connection, and a session's stdin, stdout and stderr pipes while the shell or
// the agent runs (a handful more while a deploy check starts its commands), plus the process's own.
func simFiles(n int) uint64 { return 8*uint64(n) + 64 }

// controllerFiles is the same for one controller with n boards: a connection per board, the store's files and
// sockets, the agent file it pushes.
func controllerFiles(n int) uint64 { return 4*uint64(n) + 64 }

// raiseFileLimit raises this process's soft limit of open files to need where the hard limit allows, and says
// what to do where it does not: 2,000 boards need some 16,000 descriptors, beyond the usual soft limit of 1,024,
// and a simulator that ran out of them would fail boards mid-run (accept: too many open files) and make the
// controller look slow.
func raiseFileLimit(need uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("open files limit: %w", err)
	}
	soft, err := fileLimitFor(need, lim.Cur, lim.Max)
	if err != nil {
		return err
	}
	if soft != lim.Cur {
		lim.Cur = soft
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return fmt.Errorf("raise the open files limit to %d: %w", soft, err)
		}
	}
	return nil
}

// fileLimitFor is the soft limit to set for need descriptors under the limits cur and max, or why none will do.
func fileLimitFor(need, cur, max uint64) (uint64, error) {
	if cur >= need {
		return cur, nil
	}
	if max < need {
		return 0, fmt.Errorf("this many boards need about %d open files, and the hard limit is %d (ulimit -Hn): "+
			"raise it (as root: ulimit -Hn %d, or LimitNOFILE= in a systemd unit), or simulate fewer boards", need, max, need)
	}
	return need, nil
}

// cpuSplit is -pin: the CPU lists (taskset -c) of the controllers and of the board simulator. "auto" gives the
// controllers the first half of the CPUs this process may run on and the simulator the rest, or pins nothing
// with a single CPU; "off" pins nothing; "LIST/LIST" names them.
func cpuSplit(spec string) (ctl, sim string, err error) {
	switch spec {
	case "off":
		return "", "", nil
	case "auto":
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			return "", "", fmt.Errorf("-pin auto: %w", err)
		}
		var cpus []string
		for i := range 1024 {
			if set.IsSet(i) {
				cpus = append(cpus, strconv.Itoa(i))
			}
		}
		if len(cpus) < 2 {
			return "", "", nil
		}
		h := len(cpus) / 2
		return strings.Join(cpus[:h], ","), strings.Join(cpus[h:], ","), nil
	}
	ctl, sim, ok := strings.Cut(spec, "/")
	if !ok || !cpuList(ctl) || !cpuList(sim) {
		return "", "", fmt.Errorf("-pin %q: want auto, off or CONTROLLER_CPUS/BOARD_CPUS such as 0/1 or 0-3/4-7", spec)
	}
	return ctl, sim, nil
}

// cpuList says whether s is a CPU list taskset -c takes: numbers and ranges, comma-separated.
func cpuList(s string) bool {
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return false
		}
	}
	return true
}
