package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// The kernel log of a point that floods: every line is matched before any cap, what is kept is bounded, and a
// log that stops being readable, or lines lost unread, are said in the tally.

const floodOops = "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000"

// noiseText is a line no default pattern matches, as a driver logging each request prints.
func noiseText(i int) string {
	return fmt.Sprintf("virtio_crypto virtio0: dataq.0: request %d done", i)
}

// fakeDmesg is a dmesg that prints dir/log, or fails as under kernel.dmesg_restrict = 1 while dir/fail exists.
func fakeDmesg(t *testing.T) (dir, script string) {
	t.Helper()
	dir = t.TempDir()
	script = filepath.Join(dir, "dmesg")
	body := "#!/bin/sh\nif [ -e " + dir + "/fail ]; then echo 'dmesg: read kernel buffer failed: Operation not permitted' >&2; exit 1; fi\n" +
		"cat " + dir + "/log\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, script
}

// dmesgLog is n noise lines from second from on, then the extra lines, as dmesg -r prints them.
func dmesgLog(from, n int, extra ...string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<6>[%5d.%06d] %s\n", from+i/1000, i%1000, noiseText(from*1000+i))
	}
	for i, e := range extra {
		fmt.Fprintf(&b, "<1>[%5d.%06d] %s\n", from+n, i, e)
	}
	return b.String()
}

func writeLog(t *testing.T, dir, s string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "log"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKernelWatchDmesgFloodThenOops: during a point the board's dmesg prints 500 noise lines and then an Oops;
// the Oops is matched and sent (beyond the first 64 lines), with a tally of all 501.
func TestKernelWatchDmesgFloodThenOops(t *testing.T) {
	dir, script := fakeDmesg(t)
	before := dmesgLog(1, 2)
	writeLog(t, dir, before)
	w := openKernelWatch(context.Background(), kernelPaths{kmsg: filepath.Join(dir, "kmsg"), dmesg: []string{script, "-r"}}, protocol.KernelMatcher{}, dir)
	if w.source != protocol.KernelSourceDmesg {
		t.Fatalf("source %q (%s)", w.source, w.unknown)
	}
	writeLog(t, dir, before+dmesgLog(10, 500, floodOops))
	lines, tally := w.poll(context.Background())
	if want := (protocol.KernelTally{Read: 501, Matched: 1, Fatal: 1}); tally == nil || *tally != want {
		t.Fatalf("tally %+v, want %+v", tally, want)
	}
	if len(lines) != protocol.MaxKernelLines+1 || lines[len(lines)-1].Text != floodOops || lines[0].Text != noiseText(10000) {
		t.Errorf("%d lines kept, last %q: want the first %d and the Oops", len(lines), lines[len(lines)-1].Text, protocol.MaxKernelLines)
	}
}

// TestKernelWatchDmesgStopsReading: dmesg exits 1 "Operation not permitted" after the sweep began; the point's
// tally says so, and once dmesg answers again the watch goes on from the line it read last.
func TestKernelWatchDmesgStopsReading(t *testing.T) {
	dir, script := fakeDmesg(t)
	writeLog(t, dir, dmesgLog(1, 3))
	w := openKernelWatch(context.Background(), kernelPaths{kmsg: filepath.Join(dir, "kmsg"), dmesg: []string{script, "-r"}}, protocol.KernelMatcher{}, dir)
	if w.source != protocol.KernelSourceDmesg {
		t.Fatalf("source %q (%s)", w.source, w.unknown)
	}
	if err := os.WriteFile(filepath.Join(dir, "fail"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	lines, tally := w.poll(context.Background())
	if len(lines) != 0 || tally == nil || !strings.Contains(tally.Unreadable, "exit status 1") ||
		!strings.Contains(tally.Unreadable, "Operation not permitted") || !strings.HasPrefix(tally.Unreadable, script+" -r: ") {
		t.Fatalf("poll with dmesg failing = %v, %+v: want the reason", lines, tally)
	}
	os.Remove(filepath.Join(dir, "fail"))
	writeLog(t, dir, dmesgLog(1, 3)+dmesgLog(5, 2))
	if lines, tally := w.poll(context.Background()); len(lines) != 2 || tally == nil || *tally != (protocol.KernelTally{Read: 2}) {
		t.Errorf("poll after dmesg came back = %v, %+v: want the 2 new lines", lines, tally)
	}
}

// TestKernelWatchDmesgWrapped: the line read last is gone from the log (the ring buffer wrapped under a flood):
// lines may have been lost unread, and the tally says so.
func TestKernelWatchDmesgWrapped(t *testing.T) {
	dir, script := fakeDmesg(t)
	writeLog(t, dir, dmesgLog(1, 3))
	w := openKernelWatch(context.Background(), kernelPaths{kmsg: filepath.Join(dir, "kmsg"), dmesg: []string{script, "-r"}}, protocol.KernelMatcher{}, dir)
	writeLog(t, dir, dmesgLog(50, 10))
	lines, tally := w.poll(context.Background())
	if len(lines) != 10 || tally == nil || tally.Read != 10 || !strings.Contains(tally.Unreadable, "no longer in the log") {
		t.Errorf("poll = %d lines, %+v: want all 10 and the gap said", len(lines), tally)
	}
}

// fakeKmsg serves /dev/kmsg reads one at a time: a record, or an error; EAGAIN when they are used up.
type fakeKmsg struct {
	reads []any // string (a record) or error
	n     int   // reads served
}

func (f *fakeKmsg) read(b []byte) (int, error) {
	if f.n >= len(f.reads) {
		return 0, syscall.EAGAIN
	}
	r := f.reads[f.n]
	f.n++
	if err, ok := r.(error); ok {
		return 0, err
	}
	return copy(b, r.(string)), nil
}

func kmsgRecord(seq int, level int, text string) string {
	return fmt.Sprintf("%d,%d,%d,-;%s\n", level, seq, seq*10, text)
}

func fakeKmsgWatch(f *fakeKmsg, match protocol.KernelMatcher) *kernelWatch {
	return &kernelWatch{fd: -1, seq: -1, kmsg: "/dev/kmsg", readKmsg: f.read, match: match, source: protocol.KernelSourceKmsg,
		buf: make([]byte, 8192)}
}

// TestKernelWatchKmsgFlood reads /dev/kmsg records through the reader seam: a flood then an Oops, a flood of
// matched job-ring errors over the caps, records overwritten before they were read (EPIPE, counted from the
// sequence numbers), a record that does not parse, and a board's own pattern beyond the first lines.
func TestKernelWatchKmsgFlood(t *testing.T) {
	var flood, matched []any
	for i := 0; i < 500; i++ {
		flood = append(flood, kmsgRecord(100+i, 6, noiseText(i)))
	}
	flood = append(flood, kmsgRecord(600, 1, floodOops))
	for i := 0; i < 64; i++ {
		matched = append(matched, kmsgRecord(i, 6, noiseText(i)))
	}
	for i := 0; i < 200; i++ {
		matched = append(matched, kmsgRecord(64+i, 3, fmt.Sprintf("caam_jr 8020000.jr: 4000%04x: DECO: desc idx 0: error", i)))
	}
	matched = append(matched, kmsgRecord(264, 1, "Internal error: Oops: 0000000096000005 [#1] SMP"), kmsgRecord(265, 6, noiseText(265)))
	board, err := protocol.NewKernelMatcher([]string{`^fleet-test: marker$`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		reads     []any
		match     protocol.KernelMatcher
		want      protocol.KernelTally
		kept      int
		lastKept  string
		notKeptOK bool
	}{
		{"flood then oops", flood, protocol.KernelMatcher{}, protocol.KernelTally{Read: 501, Matched: 1, Fatal: 1}, 65, floodOops, true},
		{"matched flood over the caps", matched, protocol.KernelMatcher{}, protocol.KernelTally{Read: 266, Matched: 201, Fatal: 1},
			64 + 64 + 1, "Internal error: Oops: 0000000096000005 [#1] SMP", true},
		{"overwritten", []any{kmsgRecord(10, 6, "a"), syscall.EPIPE, kmsgRecord(40, 6, "b"), "garbage without a semicolon", kmsgRecord(41, 6, "c")},
			protocol.KernelMatcher{}, protocol.KernelTally{Read: 3, Lost: 29 + 1}, 3, "c", true},
		{"overwritten before the first", []any{syscall.EPIPE, kmsgRecord(40, 6, "b")}, protocol.KernelMatcher{},
			protocol.KernelTally{Read: 1, Lost: 1}, 1, "b", true},
		{"board pattern", append(append([]any{}, flood[:100]...), kmsgRecord(200, 6, "fleet-test: marker")), board,
			protocol.KernelTally{Read: 101, Matched: 1}, 65, "fleet-test: marker", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := fakeKmsgWatch(&fakeKmsg{reads: tc.reads}, tc.match)
			lines, tally := w.poll(context.Background())
			if tally == nil || *tally != tc.want {
				t.Fatalf("tally %+v, want %+v", tally, tc.want)
			}
			if len(lines) != tc.kept || lines[len(lines)-1].Text != tc.lastKept {
				t.Errorf("%d lines kept, last %q; want %d, last %q", len(lines), lines[len(lines)-1].Text, tc.kept, tc.lastKept)
			}
			if lines, tally := w.poll(context.Background()); lines != nil || tally != nil {
				t.Errorf("second poll %v, %+v: want nothing new", lines, tally)
			}
		})
	}
}

// TestKernelWatchKmsgReadError: a read of /dev/kmsg fails with EIO or EPERM mid-sweep; that point and every
// later one say the log stopped being readable, with the error.
func TestKernelWatchKmsgReadError(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EIO, syscall.EPERM} {
		t.Run(errno.Error(), func(t *testing.T) {
			w := fakeKmsgWatch(&fakeKmsg{reads: []any{kmsgRecord(1, 4, "WARNING: CPU: 0 PID: 1 at x"), errno, kmsgRecord(2, 1, floodOops)}}, protocol.KernelMatcher{})
			lines, tally := w.poll(context.Background())
			want := "read /dev/kmsg: " + errno.Error()
			if tally == nil || *tally != (protocol.KernelTally{Read: 1, Matched: 1, Unreadable: want}) || len(lines) != 1 {
				t.Fatalf("poll = %v, %+v: want the line before the error and %q", lines, tally, want)
			}
			if lines, tally := w.poll(context.Background()); len(lines) != 0 || tally == nil || tally.Unreadable != want {
				t.Errorf("next poll = %v, %+v: want %q again", lines, tally, want)
			}
		})
	}
}

// TestKernelWatchKmsgMillionLines: a flood of a million noise records costs their count: 64 lines are kept,
// and every record was read and matched.
func TestKernelWatchKmsgMillionLines(t *testing.T) {
	n := 1 << 20
	if testing.Short() || raceDetector {
		n = 1 << 16
	}
	seq := 0
	w := fakeKmsgWatch(nil, protocol.KernelMatcher{})
	w.readKmsg = func(b []byte) (int, error) {
		if seq >= n {
			return 0, syscall.EAGAIN
		}
		seq++
		return copy(b, kmsgRecord(seq, 6, noiseText(seq))), nil
	}
	lines, tally := w.poll(context.Background())
	if tally == nil || *tally != (protocol.KernelTally{Read: n}) || len(lines) != protocol.MaxKernelLines || cap(lines) > 2*protocol.MaxKernelLines {
		t.Errorf("%d records: tally %+v, %d lines kept (capacity %d), want all read and %d kept", n, tally, len(lines), cap(lines), protocol.MaxKernelLines)
	}
}
