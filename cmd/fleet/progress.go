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
// otherwise. It never writes to stdout.
type progress struct {
	w   io.Writer
	now func() time.Time

	mu     sync.Mutex
	bars   *mpb.Progress // nil when stderr is not a terminal
	board  map[string]*boardBar
	logged map[string]string // last stage line printed per board (plain mode)
}

type boardBar struct {
	bar *mpb.Bar

	mu    sync.Mutex // never held while calling into mpb: its render goroutine reads these
	label string     // current mode, algorithm and size
	stage string
}

func (b *boardBar) set(stage, label string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if stage != "" {
		b.stage = stage
	}
	if label != "" {
		b.label = label
	}
}

func (b *boardBar) get(stage bool) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if stage {
		return b.stage
	}
	return b.label
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, now: time.Now, board: map[string]*boardBar{}, logged: map[string]string{}}
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
	if p.bars == nil {
		p.line(e)
		return
	}
	p.mu.Lock()
	b := p.board[e.Board]
	if b == nil {
		b = &boardBar{stage: e.Stage}
		p.board[e.Board] = b
		b.bar = p.bars.AddBar(0,
			mpb.PrependDecorators(decor.Name(e.Board, decor.WCSyncSpaceR),
				decor.Any(func(decor.Statistics) string { return b.get(true) }, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(decor.CountersNoUnit("%d/%d", decor.WCSyncSpace),
				decor.Any(func(decor.Statistics) string { return b.get(false) }, decor.WCSyncSpace),
				decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO, decor.WCSyncSpace), "")),
		)
	}
	p.mu.Unlock()
	switch e.Stage {
	case fleet.StageLease:
		// kept above the bars: the waiting line says whom the board waits for, and when that changed
		fmt.Fprintf(p.bars, "%s: %s\n", report.Printable(e.Board), report.Printable(e.Msg))
		b.set("lease", "")
	case fleet.StageSweep:
		label := ""
		if e.Algorithm != "" {
			label = fmt.Sprintf("%s %s %d B", e.Mode, e.Algorithm, e.Size)
		}
		b.set("sweep", label)
		if e.Total > 0 {
			b.bar.SetTotal(int64(e.Total), false)
		}
		b.bar.SetCurrent(int64(min(e.Done, max(e.Total, 0))))
	case fleet.StageDone:
		b.set(string(e.Status), report.Printable(e.Msg))
		if e.Status == protocol.StatusOK {
			b.bar.SetTotal(-1, true)
		} else {
			b.bar.Abort(false)
		}
	default:
		b.set(e.Stage, report.Printable(e.Msg))
	}
}

// line prints an event as a timestamped line; sweep progress is printed per point.
func (p *progress) line(e fleet.Event) {
	var msg string
	switch e.Stage {
	case fleet.StageSweep:
		if e.Algorithm == "" {
			msg = fmt.Sprintf("sweep: %d points planned", e.Total)
		} else {
			msg = fmt.Sprintf("%d/%d %s %s %d B", e.Done, e.Total, e.Mode, e.Algorithm, e.Size)
		}
	case fleet.StageDone:
		msg = string(e.Status)
		if e.Msg != "" {
			msg += ": " + e.Msg
		}
	case fleet.StageLease:
		msg = e.Msg // "waiting for run 41 (nightly, host ci-3, since 02:00:00)"
	default:
		msg = e.Stage
		if e.Msg != "" {
			msg += ": " + e.Msg
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.logged[e.Board] == msg {
		return
	}
	p.logged[e.Board] = msg
	// a board's words (its errors, its facts in a message) are shown, never acted on by the terminal
	fmt.Fprintf(p.w, "%s %-12s %s\n", p.now().Format("15:04:05"), report.Printable(e.Board), report.Printable(msg))
}

// Wait lets the bars draw their final state.
func (p *progress) Wait() {
	if p.bars != nil {
		p.bars.Wait()
	}
}
