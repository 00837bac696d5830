package agent

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// One openssl process can measure a whole series (every default block size of one algorithm and mode): its -mr
// output announces each size with a "+DT:ALG:SECONDS:SIZE" line on stderr when it starts and ends it with a
// "+R:COUNT:ALG:ELAPSED" line, both written unbuffered as they happen. The agent reads stderr as it comes and, at
// each such line, notes the time, the process's own CPU counters (/proc/PID/stat) and a system sample, so each
// size gets its own wall, user and system time and its own validity evidence, as if it had run alone, without
// paying openssl's start and exit once per size.

// seriesMark is what the agent read when one +DT or +R line arrived.
type seriesMark struct {
	at    time.Time
	cpu   cpuUsage // the child's user and system seconds so far, its waited-for descendants included
	cpuOK bool
	sys   systemSample // its Ev.tree counts the child's CPU so far as the agent's own
}

// sizeSpan is one block size of a series run, from its +DT line to its +R line, or one operation of a
// public-key run (sweep_asym.go), from its +DTP line to its +Rn line.
type sizeSpan struct {
	size   int // 0 for an operation
	dt, r  seriesMark
	closed bool // its +R line came
	rLine  int  // the +R line's number in the child's stderr, counted from 1
	count  int  // the count the +R line gave, -1 when it is not a number
}

// wall, user and sys of the span.
func (sp sizeSpan) times() (wall, user, sys float64) {
	wall = sp.r.at.Sub(sp.dt.at).Seconds()
	if sp.dt.cpuOK && sp.r.cpuOK {
		user, sys = sp.r.cpu.user-sp.dt.cpu.user, sp.r.cpu.sys-sp.dt.cpu.sys
	}
	return wall, user, sys
}

// seriesTracker turns the -mr lines of one child into spans. sample reads the system (the sweep's sampler);
// cpu reads the child's counters.
type seriesTracker struct {
	sample func() systemSample
	cpu    func() (cpuUsage, bool)
	spans  []sizeSpan
	last   *seriesMark // the mark of the line just before, when it was a +R: the next +DT reuses it
	lines  int         // the lines seen so far
	// onDTP, when set, is told each +DTP line's fields (+DTP:BITS:OP:NAME:SECONDS) as it arrives, before its
	// span is opened
	onDTP func(f []string)
}

// mark reads the child's CPU and the system at t.
func (tr *seriesTracker) mark(t time.Time) seriesMark {
	m := seriesMark{at: t}
	m.cpu, m.cpuOK = tr.cpu()
	m.sys = tr.sample()
	if m.cpuOK {
		m.sys.Ev.tree += m.cpu.user + m.cpu.sys
	} else {
		// the child's CPU is not yet the agent's (it has not been waited for): without it, it would show as
		// the board's background load
		m.sys.Ev.treeOK = false
	}
	return m
}

// line takes one stderr line that arrived at t.
func (tr *seriesTracker) line(l string, t time.Time) {
	tr.lines++
	switch {
	case strings.HasPrefix(l, "+DTP:"):
		// a public-key operation: openssl sets up its keys and contexts between two of them, so the +DTP is
		// read anew rather than reusing the +R before it
		f := strings.Split(l, ":")
		tr.last = nil
		if len(f) != 5 {
			return
		}
		if tr.onDTP != nil {
			tr.onDTP(f)
		}
		tr.spans = append(tr.spans, sizeSpan{dt: tr.mark(t)})
	case strings.HasPrefix(l, "+DT:"):
		f := strings.Split(l, ":")
		if len(f) != 4 {
			tr.last = nil
			return
		}
		size, err := strconv.Atoi(f[3])
		if err != nil || size <= 0 {
			tr.last = nil
			return
		}
		// openssl prints the next +DT right after the previous +R: nothing ran between them
		var m seriesMark
		if tr.last != nil {
			m = *tr.last
		} else {
			m = tr.mark(t)
		}
		tr.spans = append(tr.spans, sizeSpan{size: size, dt: m})
		tr.last = nil
	case strings.HasPrefix(l, "+R"):
		// "+R:COUNT:ALG:SECONDS" ends a size; "+Rn:COUNT:BITS[:CURVE]:SECONDS" (n from 1) an operation
		f := strings.Split(l, ":")
		n := len(tr.spans)
		if n == 0 || tr.spans[n-1].closed || len(f) < 4 || (f[0] == "+R") != (tr.spans[n-1].size > 0) ||
			f[0] != "+R" && !isDigits(f[0][2:]) {
			tr.last = nil
			return
		}
		m := tr.mark(t)
		sp := &tr.spans[n-1]
		sp.r, sp.closed, sp.rLine, sp.count = m, true, tr.lines, -1
		if c, err := strconv.Atoi(f[1]); err == nil {
			sp.count = c
		}
		tr.last = nil
		if f[0] == "+R" {
			tr.last = &sp.r
		}
	default:
		tr.last = nil
	}
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// closedSpans are the spans whose +R came, in the order they ran.
func (tr *seriesTracker) closedSpans() []sizeSpan {
	var out []sizeSpan
	for _, sp := range tr.spans {
		if sp.closed {
			out = append(out, sp)
		}
	}
	return out
}

// procTreeCPU reads user and system seconds of process pid and of the children it has waited for from
// /proc/PID/stat (utime, stime, cutime, cstime, in USER_HZ ticks: a resolution of 10 ms).
func procTreeCPU(root string, pid int) (cpuUsage, bool) {
	b, err := os.ReadFile(root + "/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return cpuUsage{}, false
	}
	return parsePIDStatCPU(string(b))
}

// parsePIDStatCPU takes fields 14–17 of a /proc/PID/stat line; the command name (field 2) may hold spaces and
// parentheses, so the fields are counted after its last ')'.
func parsePIDStatCPU(s string) (cpuUsage, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return cpuUsage{}, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): utime is field 14
	if len(f) < 15 {
		return cpuUsage{}, false
	}
	var v [4]uint64
	for k := range v {
		n, err := strconv.ParseUint(f[11+k], 10, 64)
		if err != nil {
			return cpuUsage{}, false
		}
		v[k] = n
	}
	return cpuUsage{user: float64(v[0]+v[2]) / userHZ, sys: float64(v[1]+v[3]) / userHZ}, true
}

// runSeriesChild is runChild for a series: stderr is read line by line as the child writes it, and each -mr
// line is handed to tr with its arrival time. The pipe is the agent's own, so the reader knows the child's pid
// before the first line.
func runSeriesChild(ctx context.Context, argv, env []string, root string, sample func() systemSample, pin *pinnedRun, onDTP func([]string)) (childResult, []sizeSpan) {
	res := childResult{Argv: argv, Env: env, Exit: -1}
	if len(argv) == 0 {
		res.Err = fmt.Errorf("run: empty command")
		return res, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		res.Err = fmt.Errorf("start %s: stderr pipe: %w", argv[0], err)
		return res, nil
	}
	stderr := &boundedBuffer{max: maxChildOutput}
	var tr *seriesTracker
	res = runChildPinned(ctx, argv, env, nil, pw, func(pid int) {
		pw.Close() // the child holds its copy: the read end sees EOF when the child and its group are done
		tr = &seriesTracker{sample: sample, cpu: func() (cpuUsage, bool) { return procTreeCPU(root, pid) }, onDTP: onDTP}
		// read here, before the child is waited for: until then an exited child stays a zombie whose
		// /proc/PID/stat still holds its CPU times (and its pid is nobody else's). ctx's end still kills it.
		readLines(pr, stderr, tr.line)
	}, pin)
	pr.Close()
	if tr == nil { // never started
		pw.Close()
		return res, nil
	}
	res.Stderr = stderr.String()
	return res, tr.closedSpans()
}

// readLines copies r to keep and calls line with each complete line and the time its chunk arrived.
func readLines(r io.Reader, keep io.Writer, line func(string, time.Time)) {
	br := bufio.NewReaderSize(r, 4<<10)
	var partial []byte
	for {
		b, err := br.ReadSlice('\n')
		now := time.Now()
		keep.Write(b)
		if err == bufio.ErrBufferFull {
			if len(partial) < maxChildOutput {
				partial = append(partial, b...)
			}
			continue
		}
		if len(b) > 0 && b[len(b)-1] == '\n' {
			l := append(partial, b...)
			line(string(bytes.TrimRight(l, "\r\n")), now)
			partial = partial[:0]
		}
		if err != nil {
			return
		}
	}
}
