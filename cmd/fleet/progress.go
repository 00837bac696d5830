package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
)

// progress shows each board's progress on stderr: one live bar per board on a terminal, timestamped lines
// otherwise. It never writes to stdout, so `fleet run > tables.txt` keeps the tables alone. Each board says the
// phase it is in (connecting, deploying, probing, verifying, measuring) and, once its sweep is planned, about how
// long it has left (fleet.ETA: the plan's points × seconds per point, refined as points complete).
type progress struct {
	w        io.Writer
	now      func() time.Time
	perPoint time.Duration // the sweep's seconds per point; 0: unknown, no estimate before a point completed

	mu     sync.Mutex
	bars   *mpb.Progress // nil when stderr is not a terminal
	board  map[string]*boardState
	logged map[string]string // last line printed per board (plain mode)
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, now: time.Now, board: map[string]*boardState{}, logged: map[string]string{}}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bars = mpb.New(mpb.WithOutput(w), mpb.WithWidth(30), mpb.WithRefreshRate(200*time.Millisecond))
	}
	return p
}

// Logf prints a message for people above the bars, or as a timestamped line.
func (p *progress) Logf(format string, args ...any) {
	msg := report.PrintableText(fmt.Sprintf(format, args...)) // errors quote what boards printed
	if p.bars != nil {
		fmt.Fprintln(p.bars, msg)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s %s\n", p.now().Format("15:04:05"), msg)
}

// Event implements fleet.Progress.
func (p *progress) Event(e fleet.Event) {
	now := p.now()
	p.mu.Lock()
	b := p.board[e.Board]
	if b == nil {
		b = &boardState{stage: e.Stage, eta: fleet.ETA{PerPoint: p.perPoint, Overhead: fleet.DefaultPointOverhead}}
		p.board[e.Board] = b
		if p.bars != nil {
			b.bar = p.bars.AddBar(0,
				mpb.PrependDecorators(decor.Name(e.Board, decor.WCSyncSpaceR),
					decor.Any(func(decor.Statistics) string { return b.view(p.now()).phase }, decor.WCSyncSpaceR)),
				mpb.AppendDecorators(decor.CountersNoUnit("%d/%d", decor.WCSyncSpace),
					decor.Any(func(decor.Statistics) string { return b.view(p.now()).label }, decor.WCSyncSpace),
					decor.Any(func(decor.Statistics) string { return b.view(p.now()).eta }, decor.WCSyncSpace)),
			)
		}
	}
	p.mu.Unlock()
	line := b.apply(e, now, p.perPoint > 0)
	if p.bars == nil {
		if line != "" {
			p.line(e.Board, line)
		}
		return
	}
	switch e.Stage {
	case fleet.StageLease:
		// kept above the bars: the waiting line says whom the board waits for, and when that changed
		fmt.Fprintf(p.bars, "%s: %s\n", report.Printable(e.Board), report.Printable(e.Msg))
	case fleet.StageSweep:
		if e.Total > 0 {
			b.bar.SetTotal(int64(e.Total), false)
		}
		b.bar.SetCurrent(int64(min(e.Done, max(e.Total, 0))))
	case fleet.StageDone:
		if e.Status == protocol.StatusOK {
			b.bar.SetTotal(-1, true)
		} else {
			b.bar.Abort(false)
		}
	}
}

// line prints one timestamped line for a board, unless it repeats the board's last.
func (p *progress) line(board, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.logged[board] == msg {
		return
	}
	p.logged[board] = msg
	// a board's words (its errors, its facts in a message) are shown, never acted on by the terminal
	fmt.Fprintf(p.w, "%s %-12s %s\n", p.now().Format("15:04:05"), report.Printable(board), report.Printable(msg))
}

// Wait lets the bars draw their final state.
func (p *progress) Wait() {
	if p.bars != nil {
		p.bars.Wait()
	}
}
