package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestKernelWatchKmsg reads this machine's real /dev/kmsg: a line written to it after the watch opened (as root
// may) is the one new line the watch reports, with its sequence number, and nothing from before is.
func TestKernelWatchKmsg(t *testing.T) {
	w := openKernelWatch(context.Background(), defaultKernelPaths, protocol.KernelMatcher{}, "")
	defer w.close()
	if w.source != protocol.KernelSourceKmsg {
		t.Skipf("/dev/kmsg not readable here: %s", w.unknown)
	}
	marker := fmt.Sprintf("fleet-test: kernel watch marker %d", time.Now().UnixNano())
	if err := os.WriteFile("/dev/kmsg", []byte(marker+"\n"), 0); err != nil {
		t.Skipf("cannot write /dev/kmsg (not root?): %v", err)
	}
	var got []protocol.KernelLine
	for i := 0; i < 50 && len(got) == 0; i++ { // other processes may log too; the marker must come
		lines, _ := w.poll(context.Background())
		for _, l := range lines {
			if strings.Contains(l.Text, marker) {
				got = append(got, l)
			}
		}
		if len(got) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(got) != 1 || got[0].Seq <= 0 || got[0].Text != marker {
		t.Fatalf("watch saw %+v, want the marker once with its sequence number", got)
	}
	lines, _ := w.poll(context.Background())
	for _, l := range lines {
		if strings.Contains(l.Text, marker) {
			t.Errorf("the marker came twice: %+v", l)
		}
	}
}

// TestKernelWatchUnknown: neither /dev/kmsg nor dmesg can be read, as for a user under kernel.dmesg_restrict = 1;
// the watch says why and polls nothing.
func TestKernelWatchUnknown(t *testing.T) {
	dir := t.TempDir()
	restrict := filepath.Join(dir, "dmesg_restrict")
	if err := os.WriteFile(restrict, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := openKernelWatch(context.Background(), kernelPaths{kmsg: filepath.Join(dir, "kmsg"), dmesgRestrict: restrict,
		dmesg: []string{filepath.Join(dir, "dmesg"), "-r"}}, protocol.KernelMatcher{}, dir)
	defer w.close()
	if w.source != "" || !strings.Contains(w.unknown, "kernel.dmesg_restrict = 1") || !strings.Contains(w.unknown, "kmsg") {
		t.Errorf("watch source %q, unknown %q", w.source, w.unknown)
	}
	if got, tally := w.poll(context.Background()); len(got) != 0 || tally != nil {
		t.Errorf("poll = %v, %+v", got, tally)
	}
}

// TestKernelWatchDmesg falls back to a dmesg that prints the log anew each time: only the lines after the last
// one seen are new.
func TestKernelWatchDmesg(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := filepath.Join(dir, "dmesg")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat "+log+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(log, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("<6>[    1.000000] old one\n<6>[    2.000000] old two\n")
	w := openKernelWatch(context.Background(), kernelPaths{kmsg: filepath.Join(dir, "kmsg"), dmesg: []string{script}}, protocol.KernelMatcher{}, dir)
	if w.source != protocol.KernelSourceDmesg {
		t.Fatalf("source %q (%s)", w.source, w.unknown)
	}
	write("<6>[    1.000000] old one\n<6>[    2.000000] old two\n<4>[    3.500000] WARNING: CPU: 0 PID: 1 at x\n")
	got, tally := w.poll(context.Background())
	if len(got) != 1 || got[0].Text != "WARNING: CPU: 0 PID: 1 at x" || got[0].Level != 4 || got[0].Usec != 3500000 {
		t.Errorf("poll = %+v", got)
	}
	if want := (protocol.KernelTally{Read: 1, Matched: 1}); tally == nil || *tally != want {
		t.Errorf("tally = %+v, want %+v", tally, want)
	}
	if got, tally := w.poll(context.Background()); len(got) != 0 || tally != nil {
		t.Errorf("second poll = %+v, %+v", got, tally)
	}
}
