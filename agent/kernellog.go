package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// kernelWatch reads the kernel log's new lines while a sweep runs: from /dev/kmsg, positioned at its end when the
// sweep starts and read without blocking after each command, so every line is tied to the point it appeared
// under; else from `dmesg -r`, whose new lines are those after the last one seen. Where neither can be read
// (not root with kernel.dmesg_restrict = 1) it says why, and the controller records the health as unknown.
type kernelWatch struct {
	fd      int // /dev/kmsg, O_NONBLOCK; -1 when not open
	dmesg   string
	last    protocol.KernelLine // dmesg: the newest line seen
	source  string
	unknown string
	dropped int
	buf     []byte
}

// kernelPaths are where the watch looks; tests point them elsewhere.
type kernelPaths struct {
	kmsg, dmesgRestrict string
	dmesg               []string // the command
}

var defaultKernelPaths = kernelPaths{kmsg: "/dev/kmsg", dmesgRestrict: "/proc/sys/kernel/dmesg_restrict",
	dmesg: []string{"dmesg", "-r"}}

// openKernelWatch starts watching at the log's current end.
func openKernelWatch(ctx context.Context, p kernelPaths) *kernelWatch {
	w := &kernelWatch{fd: -1}
	// A raw descriptor, not an os.File: Go's poller would park a non-blocking read of a character device that has
	// nothing new instead of returning EAGAIN.
	fd, err := syscall.Open(p.kmsg, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err == nil {
		if _, err = syscall.Seek(fd, 0, io.SeekEnd); err == nil {
			w.fd, w.source, w.buf = fd, protocol.KernelSourceKmsg, make([]byte, 8192)
			return w
		}
		syscall.Close(fd)
	}
	kmsgErr := fmt.Sprintf("%s: %v", p.kmsg, err)
	lines, derr := runDmesg(ctx, p.dmesg)
	if derr == nil {
		w.dmesg, w.source = strings.Join(p.dmesg, " "), protocol.KernelSourceDmesg
		if len(lines) > 0 {
			w.last = lines[len(lines)-1]
		}
		return w
	}
	w.unknown = kmsgErr + "; " + strings.Join(p.dmesg, " ") + ": " + derr.Error()
	if b, err := os.ReadFile(p.dmesgRestrict); err == nil && strings.TrimSpace(string(b)) == "1" {
		w.unknown += " (kernel.dmesg_restrict = 1: only root, or CAP_SYSLOG, may read the log)"
	}
	return w
}

func (w *kernelWatch) close() {
	if w != nil && w.fd >= 0 {
		syscall.Close(w.fd)
		w.fd = -1
	}
}

// poll returns the lines that appeared since the last poll, at most protocol.MaxKernelLines (the rest counted in
// dropped).
func (w *kernelWatch) poll(ctx context.Context) []protocol.KernelLine {
	var out []protocol.KernelLine
	add := func(l protocol.KernelLine) {
		if len(out) < protocol.MaxKernelLines {
			out = append(out, l)
		} else {
			w.dropped++
		}
	}
	switch {
	case w == nil:
	case w.fd >= 0:
		for {
			n, err := syscall.Read(w.fd, w.buf)
			if errors.Is(err, syscall.EPIPE) {
				w.dropped++ // overwritten in the ring buffer before it was read; the next read goes on
				continue
			}
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil || n <= 0 {
				break // EAGAIN: nothing new
			}
			if l, err := protocol.ParseKmsgRecord(w.buf[:n]); err == nil {
				add(l)
			} else {
				w.dropped++
			}
		}
	case w.dmesg != "":
		lines, err := runDmesg(ctx, strings.Fields(w.dmesg))
		if err != nil {
			return nil
		}
		for _, l := range newDmesgLines(lines, w.last) {
			add(l)
		}
		if len(lines) > 0 {
			w.last = lines[len(lines)-1]
		}
	}
	return out
}

// newDmesgLines are the lines after last in lines: all of them when last is not there (the ring buffer wrapped,
// or nothing was seen).
func newDmesgLines(lines []protocol.KernelLine, last protocol.KernelLine) []protocol.KernelLine {
	if last.Text == "" {
		return lines
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Text == last.Text && lines[i].Usec == last.Usec {
			return lines[i+1:]
		}
	}
	return lines
}

func runDmesg(ctx context.Context, argv []string) ([]protocol.KernelLine, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := firstErrorLine(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%w: %s", err, msg)
		}
		return nil, err
	}
	var lines []protocol.KernelLine
	for _, s := range strings.Split(stdout.String(), "\n") {
		if l, ok := protocol.ParseDmesgLine(s); ok {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// kernelReport is the watch's message for one end of the sweep, with /proc/crypto and the boot id as they are now.
func (w *kernelWatch) report(ctx context.Context, phase, root string) *protocol.Kernel {
	k := &protocol.Kernel{Phase: phase, Source: w.source, Unknown: w.unknown, BootID: readBootID(root), Now: time.Now().Unix()}
	if phase == "after" {
		k.Lines = w.poll(ctx)
		k.Dropped = w.dropped
		if b, err := os.ReadFile(root + "/proc/crypto"); err == nil {
			k.ProcCrypto, _ = ParseProcCrypto(bytes.NewReader(b))
		}
	}
	return k
}

// readBootID is the kernel's random id of this boot; "" where it cannot be read.
func readBootID(root string) string {
	b, err := os.ReadFile(root + "/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if len(id) > 64 {
		return ""
	}
	return id
}
