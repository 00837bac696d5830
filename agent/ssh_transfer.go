package agent

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// The board's side of mode ssh. The controller streams data through a fresh SSH connection into
// `fleet-agent ssh-sink N` (upload) or out of `fleet-agent ssh-source N` (download); the agent moves the bytes
// to or from nowhere, like `cat > /dev/null` and `head -c N /dev/zero`, and samples the whole board's /proc/stat
// just before the first and just after the last byte, so the controller gets the board's CPU over the transfer.
//
//	ssh-sink N:   prints "ready\n" once /proc/stat is sampled, reads exactly N bytes from stdin, then prints one
//	              protocol.Transfer JSON line on stdout.
//	ssh-source N: prints "ready\n" on stderr, waits for one byte on stdin (the controller's "go", so that the
//	              agent's own start-up is not timed), samples, writes N zero bytes to stdout, then prints the
//	              Transfer line on stderr (stdout is the data).

// transferChunk is the size of each read and write: as large as one SSH channel packet sequence of OpenSSH's
// (32 KiB packets), so the agent costs the board a few system calls per packet at most.
const transferChunk = 64 << 10

// readBoardStat reads the board's CPU counters; a variable for tests only.
var readBoardStat = func() ([]statLine, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseProcStatLines(bufio.NewReader(f))
}

func mainSSHTransfer(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "usage: fleet-agent %s BYTES\n", cmd)
		return 2
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || n < 1 {
		fmt.Fprintf(stderr, "%s: BYTES %q: want a positive number of bytes\n", cmd, args[0])
		return 2
	}
	var rep protocol.Transfer
	var out io.Writer = stdout
	if cmd == "ssh-sink" {
		rep, err = sinkTransfer(n, stdin, stdout)
	} else {
		out = stderr
		rep, err = sourceTransfer(n, stdin, stdout, stderr)
	}
	if err != nil {
		rep.Error = err.Error()
	}
	line, _ := protocol.EncodeJSON(rep)
	fmt.Fprintf(out, "%s\n", line)
	if err != nil {
		return 1
	}
	return 0
}

// sinkTransfer reads n bytes from in and discards them.
func sinkTransfer(n int64, in io.Reader, out io.Writer) (protocol.Transfer, error) {
	before, t0, err := sampleBoard()
	if err != nil {
		return protocol.Transfer{}, err
	}
	if _, err := io.WriteString(out, "ready\n"); err != nil {
		return protocol.Transfer{}, fmt.Errorf("ssh-sink: write: %w", err)
	}
	buf := make([]byte, transferChunk)
	got, err := io.CopyBuffer(io.Discard, io.LimitReader(onlyReader{in}, n), buf)
	rep, serr := finishTransfer(got, before, t0)
	switch {
	case err != nil:
		return rep, fmt.Errorf("ssh-sink: read after %d of %d bytes: %w", got, n, err)
	case got < n:
		return rep, fmt.Errorf("ssh-sink: stdin ended after %d of %d bytes", got, n)
	}
	return rep, serr
}

// sourceTransfer waits for the controller's go, then writes n zero bytes to out.
func sourceTransfer(n int64, in io.Reader, out, ctl io.Writer) (protocol.Transfer, error) {
	if _, err := io.WriteString(ctl, "ready\n"); err != nil {
		return protocol.Transfer{}, fmt.Errorf("ssh-source: write: %w", err)
	}
	var goByte [1]byte
	if _, err := io.ReadFull(in, goByte[:]); err != nil {
		return protocol.Transfer{}, fmt.Errorf("ssh-source: waiting for the controller: %w", err)
	}
	before, t0, err := sampleBoard()
	if err != nil {
		return protocol.Transfer{}, err
	}
	buf := make([]byte, transferChunk)
	var sent int64
	for sent < n {
		k := min(int64(len(buf)), n-sent)
		w, err := out.Write(buf[:k])
		sent += int64(w)
		if err != nil {
			rep, _ := finishTransfer(sent, before, t0)
			return rep, fmt.Errorf("ssh-source: write after %d of %d bytes: %w", sent, n, err)
		}
	}
	return finishTransfer(sent, before, t0)
}

// onlyReader hides a reader's WriteTo, so that io.CopyBuffer uses the buffer given (an *os.File's WriteTo would
// fall back to a 32 KiB one, or splice).
type onlyReader struct{ io.Reader }

func sampleBoard() ([]statLine, time.Time, error) {
	lines, err := readBoardStat()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("board cpu: %w", err)
	}
	return lines, time.Now(), nil
}

// finishTransfer samples /proc/stat again and reports the board's CPU between the two samples. A transfer
// shorter than one clock tick (10 ms) has no ticks to count: its CPU is reported as 0 of 0 ticks, not an error.
func finishTransfer(bytes int64, before []statLine, t0 time.Time) (protocol.Transfer, error) {
	after, t1, err := sampleBoard()
	rep := protocol.Transfer{Bytes: bytes, WallS: t1.Sub(t0).Seconds()}
	if err != nil {
		return rep, err
	}
	b, a := before[0], after[0]
	rep.Cores = len(after) - 1
	if a.Total <= b.Total || a.Busy < b.Busy || a.Busy-b.Busy > a.Total-b.Total {
		return rep, nil
	}
	rep.BusyTicks, rep.TotalTicks = a.Busy-b.Busy, a.Total-b.Total
	rep.BoardPct = float64(rep.BusyTicks) / float64(rep.TotalTicks) * float64(rep.Cores) * 100
	return rep, nil
}
