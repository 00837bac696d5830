package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// On the shell path the sweep runs on the controller, so the kernel log, /proc/crypto and the boot id must be
// read on the board, through its session: the controller's own /dev/kmsg says nothing of the board. The board's
// dmesg -r is read whole after every command as on a board without /dev/kmsg, and its lines go through the same
// matching and tally (kernelKeep).

// remoteDmesgBytes bounds what one read of the board's log sends back: a record of the session holds 1 MiB, and
// a board booted with a large log_buf_len prints more. The tail is what a point's new lines are in; a point
// that printed more than this loses its first lines, which the watch then says (the line read last is gone).
const remoteDmesgBytes = 768 << 10

// remoteDmesgArgv keeps dmesg's exit status (a pipe's would be tail's) and cuts its output to its tail.
func remoteDmesgArgv() []string {
	return []string{"sh", "-c", fmt.Sprintf(`fleet_k=$(dmesg -r) || exit $?; printf '%%s\n' "$fleet_k" | tail -c %d`, remoteDmesgBytes)}
}

// openRemoteKernelWatch starts watching the log of the board behind r at its current end.
func openRemoteKernelWatch(ctx context.Context, r Remote, match protocol.KernelMatcher) *kernelWatch {
	w := &kernelWatch{fd: -1, seq: -1, match: match, file: func(path string) ([]byte, error) { return remoteFile(ctx, r, path) }}
	if !w.startDmesg(ctx, "dmesg -r (on the board)", func(ctx context.Context) ([]protocol.KernelLine, error) { return remoteDmesg(ctx, r) }) {
		w.unknown += " (not root, or kernel.dmesg_restrict = 1: only root, or CAP_SYSLOG, may read the log)"
	}
	return w
}

// remoteDmesg reads the board's log with its dmesg -r.
func remoteDmesg(ctx context.Context, r Remote) ([]protocol.KernelLine, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	run, _ := r.Exec(ctx, RemoteExec{Argv: remoteDmesgArgv()})
	switch {
	case run.Err != nil:
		return nil, run.Err
	case run.Exit != 0:
		if msg := firstErrorLine(run.Stderr); msg != "" {
			return nil, fmt.Errorf("exit status %d: %s", run.Exit, msg)
		}
		return nil, fmt.Errorf("exit status %d", run.Exit)
	}
	out := run.Stdout
	if len(out) >= remoteDmesgBytes {
		_, out, _ = strings.Cut(out, "\n") // tail cut its first line
	}
	return parseDmesg(out), nil
}

// remoteFile is a file of the board, read with cat through its session.
func remoteFile(ctx context.Context, r Remote, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	run, _ := r.Exec(ctx, RemoteExec{Argv: []string{"cat", path}})
	switch {
	case run.Err != nil:
		return nil, run.Err
	case run.Exit != 0:
		return nil, fmt.Errorf("cat %s: exit status %d", path, run.Exit)
	}
	return []byte(run.Stdout), nil
}
