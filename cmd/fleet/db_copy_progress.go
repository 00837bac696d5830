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

	"github.com/fleetlab/fleet/store"
)

// copyProgress draws db copy's bar on stderr when it is a terminal: points copied of those to copy, with the
// run being copied and the runs done. Elsewhere it draws nothing; the command's final line says what was done.
type copyProgress struct {
	bars *mpb.Progress // nil when stderr is not a terminal
	bar  *mpb.Bar

	mu    sync.Mutex // guards label, read by mpb's render goroutine
	label string
}

func newCopyProgress(w io.Writer) *copyProgress {
	p := &copyProgress{}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bars = mpb.New(mpb.WithOutput(w), mpb.WithWidth(30), mpb.WithRefreshRate(200*time.Millisecond))
	}
	return p
}

// update is store.Copy's progress callback.
func (p *copyProgress) update(c store.CopyProgress) {
	if p.bars == nil {
		return
	}
	p.mu.Lock()
	p.label = fmt.Sprintf("run %d (%d/%d runs)", c.Run, c.Runs, c.RunsTotal)
	if c.Run == 0 {
		p.label = fmt.Sprintf("%d runs to copy", c.RunsTotal)
	}
	p.mu.Unlock()
	if p.bar == nil {
		p.bar = p.bars.AddBar(int64(c.PointsTotal),
			mpb.PrependDecorators(decor.Name("copy", decor.WCSyncSpaceR),
				decor.Any(func(decor.Statistics) string { return p.get() }, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(decor.CountersNoUnit("%d/%d points", decor.WCSyncSpace),
				decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO, decor.WCSyncSpace), "")),
		)
	}
	p.bar.SetTotal(int64(c.PointsTotal), false)
	p.bar.SetCurrent(int64(c.Points))
}

func (p *copyProgress) get() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.label
}

// done completes the bar (or leaves it where it stopped) and waits for its last drawing, so that the final line
// prints below it.
func (p *copyProgress) done(ok bool) {
	if p.bars == nil {
		return
	}
	if p.bar != nil {
		if ok {
			p.bar.SetTotal(-1, true)
		} else {
			p.bar.Abort(false)
		}
	}
	p.bars.Wait()
}
