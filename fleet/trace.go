package fleet

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Tracer receives the timings of a board's run: each phase (connect, deploy, measure) and each command or file
// put on the board (one SSH session each). `fleet run --trace` prints them, to show where the fixed cost of a
// board goes; what is measured is unchanged.
type Tracer func(board, what string, start time.Time, took time.Duration)

// TraceWriter returns a Tracer printing one line per event to w, times relative to since:
//
//	trace board1   +0.081s    62.3ms  session sh -c (deploy check)
func TraceWriter(w io.Writer, since time.Time) Tracer {
	var mu sync.Mutex
	return func(board, what string, start time.Time, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "trace %-8s %+8.3fs %8.1fms  %s\n", board, start.Sub(since).Seconds(),
			float64(took.Microseconds())/1000, what)
	}
}

// Phase times one phase of a board's run (or of the whole run, board "run"); the returned func ends it.
// A nil Tracer does nothing.
func (tr Tracer) Phase(board, what string) func() {
	if tr == nil {
		return func() {}
	}
	start := time.Now()
	return func() { tr(board, what, start, time.Since(start)) }
}

// tracedTransport reports each Run and Put of the transport it wraps to a Tracer.
type tracedTransport struct {
	Transport
	board string
	trace Tracer
}

// traced wraps t when tr is set.
func traced(t Transport, board string, tr Tracer) Transport {
	if tr == nil {
		return t
	}
	return &tracedTransport{Transport: t, board: board, trace: tr}
}

func (t *tracedTransport) Run(ctx context.Context, cmd Command) error {
	defer t.trace.Phase(t.board, "session "+sessionName(cmd.Args))()
	return t.Transport.Run(ctx, cmd)
}

func (t *tracedTransport) Put(ctx context.Context, p string, r io.Reader, size int64, perm fs.FileMode) error {
	defer t.trace.Phase(t.board, fmt.Sprintf("session put %s (%d bytes)", path.Base(p), size))()
	return t.Transport.Put(ctx, p, r, size, perm)
}

// sessionName is a short name of a command: the program and its first argument, "sh -c" with the script's
// comment line when it starts with one.
func sessionName(args []string) string {
	if len(args) == 0 {
		return "(empty)"
	}
	name := path.Base(args[0])
	if len(args) > 1 {
		a := args[1]
		if name == "sh" && a == "-c" && len(args) > 2 {
			first, _, _ := strings.Cut(args[2], "\n")
			if c, ok := strings.CutPrefix(first, "# "); ok {
				return "sh -c (" + c + ")"
			}
			return "sh -c"
		}
		if len(a) > 30 {
			a = a[:30] + "…"
		}
		name += " " + a
	}
	return name
}

// pointTimer times the points of a sweep as the controller receives them, for --trace: from the agent's Begin of a
// command to each of its points, with the openssl child's own wall time and what openssl says it measured, and
// the time since the previous point arrived (the agent's work between two points: evidence, the kernel watch,
// the raw output). bench/README.md §l ("Where a sweep's time goes") reads a sweep's per-point overhead from it.
type pointTimer struct{ began, last time.Time }

// begin notes that b began at now; a job joined to the running command (b.Joined: the public-key algorithms of
// a mode in one openssl) changes nothing, its points' span began with the command's.
func (pt *pointTimer) begin(b protocol.Begin, now time.Time) {
	if !b.Joined {
		pt.began = now
	}
}

// point reports p, arrived at now, to tr (nil: nothing).
func (pt *pointTimer) point(tr Tracer, board string, p protocol.Point, now time.Time) {
	defer func() { pt.last = now }()
	if tr == nil {
		return
	}
	start := pt.began
	if start.IsZero() {
		start = now
	}
	what := fmt.Sprintf("point %s %s", p.Mode, p.Algorithm)
	if p.BlockSize > 0 {
		what += fmt.Sprintf(" %d B", p.BlockSize)
	}
	if p.Op != "" {
		what += " " + p.Op
	}
	what += fmt.Sprintf(" #%d: child %.3f s, openssl measured %.2f s", p.Repeat, p.WallS, p.Seconds)
	if !pt.last.IsZero() && pt.last.Before(start) {
		what += fmt.Sprintf(", %.1f ms after the previous point", float64(start.Sub(pt.last).Microseconds())/1000)
	}
	what += seriesNote(p)
	tr(board, what, start, now.Sub(start))
}

// seriesNote says how the openssl process of a point was shared: one for a whole series (the agent's
// "accounting-per-size" flag: the first point's span is the whole process, the others arrive with it), for the
// public-key algorithms of one mode ("accounting-per-op", the same way), or
// divided among the points of one run ("accounting-split"). Any other openssl point had a process of its own;
// the agent's log says why its series was not one process.
func seriesNote(p protocol.Point) string {
	for _, f := range p.Flags {
		switch {
		case strings.HasPrefix(f, "accounting-per-size:"):
			return ", one openssl for its series (raw " + strconv.Itoa(p.RawID) + ")"
		case strings.HasPrefix(f, "accounting-per-op:"):
			return ", one openssl for its public-key algorithms (raw " + strconv.Itoa(p.RawID) + ")"
		case strings.HasPrefix(f, "accounting-split:"):
			return ", one openssl run divided (raw " + strconv.Itoa(p.RawID) + ")"
		}
	}
	return ""
}

// traceVerify reports one path's verification, which the agent timed on the board (it arrives when it ended).
func traceVerify(tr Tracer, board string, v protocol.VerifyReport, now time.Time) {
	if tr == nil {
		return
	}
	took := time.Duration(v.Seconds * float64(time.Second))
	tr(board, fmt.Sprintf("verify %s %s (on the board)", v.Mode, v.Algorithm), now.Add(-took), took)
}
