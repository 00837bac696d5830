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
// (not root with kernel.dmesg_restrict = 1) it says why, and the controller records the health as unknown. Each
// line read is matched against the plan's patterns at once (kernelKeep), and a log that stops being readable, or
// lines lost before they were read, are said in the point's tally: the controller never calls that log ok.
type kernelWatch struct {
	fd   int    // /dev/kmsg, O_NONBLOCK; -1 when not open
	kmsg string // its path, for messages
	// readKmsg reads one record of fd (tests replace it); nil when /dev/kmsg is not read.
	readKmsg func([]byte) (int, error)
	seq      int64  // /dev/kmsg: the newest sequence number read; -1 before any
	broken   string // /dev/kmsg: why it stopped being readable
	// dmesg prints the whole log (this machine's dmesg, or the board's on the shell path); nil when not read so.
	dmesg    func(context.Context) ([]protocol.KernelLine, error)
	dmesgCmd string              // what dmesg runs, for messages
	last     protocol.KernelLine // dmesg: the newest line seen
	source   string
	unknown  string
	match    protocol.KernelMatcher
	// file reads a file of the board (/proc/crypto, the boot id).
	file func(path string) ([]byte, error)
	buf  []byte
}

// kernelPaths are where the watch looks; tests point them elsewhere.
type kernelPaths struct {
	kmsg, dmesgRestrict string
	dmesg               []string // the command
}

var defaultKernelPaths = kernelPaths{kmsg: "/dev/kmsg", dmesgRestrict: "/proc/sys/kernel/dmesg_restrict",
	dmesg: []string{"dmesg", "-r"}}

// openKernelWatch starts watching this machine's log at its current end; root prefixes the files report reads.
func openKernelWatch(ctx context.Context, p kernelPaths, match protocol.KernelMatcher, root string) *kernelWatch {
	w := &kernelWatch{fd: -1, seq: -1, match: match, file: func(path string) ([]byte, error) { return os.ReadFile(root + path) }}
	// A raw descriptor, not an os.File: Go's poller would park a non-blocking read of a character device that has
	// nothing new instead of returning EAGAIN.
	fd, err := syscall.Open(p.kmsg, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err == nil {
		if _, err = syscall.Seek(fd, 0, io.SeekEnd); err == nil {
			w.fd, w.kmsg, w.source, w.buf = fd, p.kmsg, protocol.KernelSourceKmsg, make([]byte, 8192)
			w.readKmsg = func(b []byte) (int, error) { return syscall.Read(fd, b) }
			return w
		}
		syscall.Close(fd)
	}
	kmsgErr := fmt.Sprintf("%s: %v", p.kmsg, err)
	argv := p.dmesg
	if w.startDmesg(ctx, strings.Join(argv, " "), func(ctx context.Context) ([]protocol.KernelLine, error) { return runDmesg(ctx, argv) }) {
		return w
	}
	w.unknown = kmsgErr + "; " + w.unknown
	if b, err := os.ReadFile(p.dmesgRestrict); err == nil && strings.TrimSpace(string(b)) == "1" {
		w.unknown += " (kernel.dmesg_restrict = 1: only root, or CAP_SYSLOG, may read the log)"
	}
	return w
}

// startDmesg reads the log with dmesg once, to know its end; false (unknown says why) when dmesg fails.
func (w *kernelWatch) startDmesg(ctx context.Context, name string, dmesg func(context.Context) ([]protocol.KernelLine, error)) bool {
	lines, err := dmesg(ctx)
	if err != nil {
		w.unknown = name + ": " + err.Error()
		return false
	}
	w.dmesg, w.dmesgCmd, w.source = dmesg, name, protocol.KernelSourceDmesg
	if len(lines) > 0 {
		w.last = lines[len(lines)-1]
	}
	return true
}

func (w *kernelWatch) close() {
	if w != nil && w.fd >= 0 {
		syscall.Close(w.fd)
		w.fd = -1
	}
}

// poll reads the lines that appeared since the last poll, matches each, and returns those kept with the tally
// of all of them (kernelKeep).
func (w *kernelWatch) poll(ctx context.Context) ([]protocol.KernelLine, *protocol.KernelTally) {
	if w == nil {
		return nil, nil
	}
	k := kernelKeep{match: w.match}
	switch {
	case w.broken != "":
		k.notRead(w.broken)
	case w.readKmsg != nil:
		w.pollKmsg(&k)
	case w.dmesg != nil:
		w.pollDmesg(ctx, &k)
	}
	return k.result()
}

// pollKmsg reads /dev/kmsg's records up to EAGAIN. A read error other than EAGAIN, EINTR and EPIPE means the log
// cannot be read any more: the watch stops, and this point and every later one say why.
func (w *kernelWatch) pollKmsg(k *kernelKeep) {
	overwritten := false
	for {
		n, err := w.readKmsg(w.buf)
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return // nothing new
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EPIPE):
			overwritten = true // records were overwritten in the ring buffer before they were read; the next read goes on
			continue
		case err != nil:
			w.broken = fmt.Sprintf("read %s: %v", w.kmsg, err)
			k.notRead(w.broken)
			w.close()
			w.readKmsg = nil
			return
		case n <= 0:
			return
		}
		l, err := protocol.ParseKmsgRecord(w.buf[:n])
		if err != nil {
			k.lost(1)
			continue
		}
		// The sequence numbers say how many records were overwritten; without an earlier one, at least one was.
		switch gap := l.Seq - w.seq - 1; {
		case w.seq >= 0 && gap > 0:
			k.lost(int(min(gap, 1<<30)))
		case overwritten:
			k.lost(1)
		}
		overwritten = false
		w.seq = max(w.seq, l.Seq)
		k.add(l)
	}
}

// pollDmesg runs dmesg and takes the lines after the last one seen. dmesg failing, and a last line no longer in
// the log (the ring buffer wrapped between two runs, or the log was cleared: lines may have been lost unread),
// are said; the next poll tries again.
func (w *kernelWatch) pollDmesg(ctx context.Context, k *kernelKeep) {
	lines, err := w.dmesg(ctx)
	if err != nil {
		k.notRead(w.dmesgCmd + ": " + err.Error())
		return
	}
	fresh, found := newDmesgLines(lines, w.last)
	if !found {
		k.notRead(w.dmesgCmd + ": the line read last is no longer in the log (its ring buffer wrapped, or it was " +
			"cleared): lines before those read may have been lost unread")
	}
	for _, l := range fresh {
		k.add(l)
	}
	if len(lines) > 0 {
		w.last = lines[len(lines)-1]
	}
}

// newDmesgLines are the lines after last in lines: all of them when nothing was seen before, and when last is
// not there (found is false: the ring buffer wrapped, or the log was cleared).
func newDmesgLines(lines []protocol.KernelLine, last protocol.KernelLine) (fresh []protocol.KernelLine, found bool) {
	if last.Text == "" {
		return lines, true
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Text == last.Text && lines[i].Usec == last.Usec {
			return lines[i+1:], true
		}
	}
	return lines, false
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
	return parseDmesg(stdout.String()), nil
}

// parseDmesg parses dmesg -r's output.
func parseDmesg(out string) []protocol.KernelLine {
	var lines []protocol.KernelLine
	for _, s := range strings.Split(out, "\n") {
		if l, ok := protocol.ParseDmesgLine(s); ok {
			lines = append(lines, l)
		}
	}
	return lines
}

// kernelReport is the watch's message for one end of the sweep, with /proc/crypto and the boot id as they are now.
func (w *kernelWatch) report(ctx context.Context, phase string) *protocol.Kernel {
	k := &protocol.Kernel{Phase: phase, Source: w.source, Unknown: w.unknown, BootID: readBootIDFrom(w.file), Now: time.Now().Unix()}
	if phase == "after" {
		k.Lines, k.Tally = w.poll(ctx)
		if b, err := w.file("/proc/crypto"); err == nil {
			k.ProcCrypto, _ = ParseProcCrypto(bytes.NewReader(b))
		}
	}
	return k
}

// readBootID is the kernel's random id of this boot; "" where it cannot be read.
func readBootID(root string) string {
	return readBootIDFrom(func(path string) ([]byte, error) { return os.ReadFile(root + path) })
}

func readBootIDFrom(file func(string) ([]byte, error)) string {
	b, err := file("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if len(id) > 64 {
		return ""
	}
	return id
}
