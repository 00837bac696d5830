package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/transport"
)

// A board that dies under a sweep (panic, reboot, watchdog reset) takes its SSH connection with it: the
// keepalives go unanswered and the transport reports transport.ErrConnectionLost. The job in flight is stored as a failed
// point "board lost during afalg aes-256-cbc 8192 B". With a reconnect wait, fleet dials the board until it
// answers again, reads its boot id (a new one: it rebooted) and the panic it kept in pstore, leaves out the mode
// and algorithm that were running and measures the rest; without one the board fails with what it measured.

// errBoardLost is the cause of a board run whose board went away mid-sweep.
var errBoardLost = errors.New("board lost")

// maxReboots bounds how often one board run reconnects: a board that crashes at every algorithm is a failure.
const maxReboots = 4

// reconnectPoll is the pause between attempts to reach a board that is booting.
const reconnectPoll = 3 * time.Second

// boardLost reports whether err is the board going away, not the agent or the measurement failing.
func boardLost(err error) bool { return errors.Is(err, transport.ErrConnectionLost) }

// lostPoint is the failed point stored for the job in flight.
func lostPoint(b protocol.Begin) protocol.Point {
	return protocol.Point{Mode: b.Mode, Algorithm: b.Algorithm, BlockSize: b.BlockSize, Repeat: b.Repeat, Threads: 1,
		Timing: "wall", Failed: true, Error: "board lost during " + b.Label()}
}

// bootCheckScript prints the boot id, then each pstore dmesg record (newest last) written since since (the
// board's clock at the sweep's start): its mtime, then its last 8 KiB, where the panic is.
const bootCheckScript = `cat /proc/sys/kernel/random/boot_id
for f in /sys/fs/pstore/dmesg-*; do
	[ -f "$f" ] || continue
	t=$(stat -c %Y "$f" 2>/dev/null) || continue
	[ "$t" -ge "$1" ] || continue
	echo "==pstore $f"
	tail -c 8192 "$f"
	echo
done`

// bootState is what the board says after it answered again.
type bootState struct {
	bootID string
	panic  []protocol.KernelLine // pstore records of the crash, oldest first
}

// readBootState runs bootCheckScript on t.
func readBootState(ctx context.Context, t Transport, since int64) (bootState, error) {
	var out bytes.Buffer
	stderr := &tailWriter{Max: 1024}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := t.Run(ctx, Command{Args: []string{"sh", "-c", bootCheckScript, "fleet-boot-check", strconv.FormatInt(since, 10)},
		Stdout: &limitWriter{w: &out, n: 1 << 20}, Stderr: stderr})
	if err != nil {
		return bootState{}, withStderr(fmt.Errorf("read boot id: %w", err), stderr.String())
	}
	return parseBootState(out.String()), nil
}

// parseBootState reads bootCheckScript's output: the first line is the boot id, each "==pstore" line starts a
// record whose lines are kernel log lines ("<0>[   16.122270] Kernel panic - not syncing: …").
func parseBootState(out string) bootState {
	lines := strings.Split(out, "\n")
	var s bootState
	if len(lines) > 0 {
		if id := strings.TrimSpace(lines[0]); len(id) <= 64 && !strings.ContainsAny(id, " \t") {
			s.bootID = id
		}
		lines = lines[1:]
	}
	in := false
	for _, l := range lines {
		if strings.HasPrefix(l, "==pstore ") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if kl, ok := protocol.ParseDmesgLine(l); ok {
			s.panic = append(s.panic, kl)
		}
	}
	return s
}

// panicExcerpt is the crash in the record: from the first line that says what happened (a panic, an Oops, sysrq's
// crash) at most 30 lines and 4 KiB, else the record's last 30 lines.
func panicExcerpt(ls []protocol.KernelLine) string {
	start := max(0, len(ls)-30)
	for i, l := range ls {
		if strings.Contains(l.Text, "Kernel panic") || strings.Contains(l.Text, "Oops") || strings.Contains(l.Text, "sysrq: Trigger a crash") {
			start = i
			break
		}
	}
	var b strings.Builder
	for _, l := range ls[start:min(len(ls), start+30)] {
		if b.Len()+len(l.Text) > 4096 {
			break
		}
		b.WriteString(l.Text + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// reconnect dials the board until it answers and runs the boot check, or wait has passed.
func (r *boardRun) reconnect(wait time.Duration, since int64) (Transport, bootState, error) {
	ctx, cancel := context.WithTimeout(r.ctx, wait)
	defer cancel()
	var last error
	for {
		t, err := connect(ctx, r.opts, r.b)
		if err == nil {
			var st bootState
			if st, err = readBootState(ctx, t, since); err == nil {
				return t, st, nil
			}
			t.Close()
		}
		last = err
		r.event(Event{Stage: StageConnect, Msg: fmt.Sprintf("waiting for the board to answer again: %v", err)})
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, bootState{}, fmt.Errorf("no answer within the reconnect wait of %v: %w", wait, last)
			}
			return nil, bootState{}, ctx.Err()
		case <-time.After(reconnectPoll):
		}
	}
}

// restPlans are what is left of the sweep after the job lost: the lost algorithm in the other modes, the
// algorithms its command measured before it (with, lost with it: Begin.Joined) in its mode, then the algorithms
// after it (every algorithm but it when repeats interleave the whole sweep, so that later repeats still run;
// the points already stored are not stored twice).
func restPlans(plan protocol.Plan, lost protocol.Begin, with []protocol.Begin) []protocol.Plan {
	var out []protocol.Plan
	others := slices.DeleteFunc(slices.Clone(plan.Modes), func(m string) bool { return m == lost.Mode })
	if len(others) > 0 {
		p := plan
		p.Algorithms, p.Modes = []string{lost.Algorithm}, others
		out = append(out, p)
	}
	whole := plan.Repeats > 1 || plan.PrecisionPct > 0
	var before []string
	for _, b := range with {
		if i := slices.Index(plan.Algorithms, b.Algorithm); i >= 0 && i < slices.Index(plan.Algorithms, lost.Algorithm) &&
			!whole && !slices.Contains(before, b.Algorithm) {
			before = append(before, b.Algorithm) // an algorithm after the lost one is in the last plan anyway
		}
	}
	if len(before) > 0 {
		p := plan
		p.Algorithms, p.Modes = before, []string{lost.Mode}
		out = append(out, p)
	}
	var algs []string
	after := false
	for _, a := range plan.Algorithms {
		switch {
		case a == lost.Algorithm:
			after = true
		case after || whole:
			algs = append(algs, a)
		}
	}
	if len(algs) > 0 {
		p := plan
		p.Algorithms = algs
		out = append(out, p)
	}
	return out
}

// limitWriter keeps the first n bytes written and drops the rest.
type limitWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

func reconnectWaitFor(opts RunOptions, b inventory.Board) time.Duration {
	if opts.ReconnectWait != nil {
		return *opts.ReconnectWait
	}
	return inventory.ReconnectWaitFor(b, opts.Sweep)
}

// closedTransport stands in for a connection that could not be made again: every call fails.
type closedTransport struct{}

func (closedTransport) Run(context.Context, Command) error { return errBoardLost }
func (closedTransport) Put(context.Context, string, io.Reader, int64, fs.FileMode) error {
	return errBoardLost
}
func (closedTransport) Close() error { return nil }
