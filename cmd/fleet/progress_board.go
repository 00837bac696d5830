package main

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/report"
)

// boardState is one board's progress as the bar and the lines show it. Its mutex is never held while calling
// into mpb: mpb's render goroutine calls view.
type boardState struct {
	bar *mpb.Bar

	mu       sync.Mutex
	stage    string
	label    string // what the phase is doing: the point in flight, the path verified, the deploy's message
	total    int    // points planned; 0 before the sweep is planned
	done     int
	begun    bool // the agent names each point as it begins: the label is the point in flight
	ended    bool // stage is the board's status
	eta      fleet.ETA
	estimate bool // an estimate can be given: the plan's seconds per point are known, or a point completed
}

// boardView is what the bar draws.
type boardView struct{ phase, label, eta string }

// apply takes in an event at now and returns the line plain mode prints for it ("" for none). planKnown says
// that the plan's seconds per point are known, so that the time left can be estimated before any point ends.
func (b *boardState) apply(e fleet.Event, now time.Time, planKnown bool) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e.Stage {
	case fleet.StageSweep:
		if e.Total > 0 {
			b.total = e.Total
		}
		if e.Algorithm == "" { // planned: the agent verifies every path before it measures one
			b.stage, b.label, b.estimate = fleet.StageVerify, "", planKnown
			return fmt.Sprintf("sweep: %d points planned%s", b.total, b.etaText(now, ", "))
		}
		b.done = e.Done
		b.eta.Completed(e.Done, now)
		b.stage, b.estimate = fleet.StageSweep, true
		point := fmt.Sprintf("%s %s %d B", e.Mode, e.Algorithm, e.Size)
		if !b.begun {
			b.label = point
		}
		return fmt.Sprintf("%d/%d %s%s", e.Done, b.total, point, b.etaText(now, ", "))
	case fleet.StageVerify:
		b.stage, b.label = fleet.StageVerify, fmt.Sprintf("%s %s", e.Mode, e.Algorithm)
		return fmt.Sprintf("verifying %s %s: %s", e.Mode, e.Algorithm, e.Msg)
	case fleet.StageMeasure:
		first := !b.begun
		b.begun, b.stage, b.label = true, fleet.StageMeasure, fmt.Sprintf("%s %s %d B", e.Mode, e.Algorithm, e.Size)
		b.eta.Begin(now)
		if first {
			return fmt.Sprintf("measuring: %d points%s", b.total, b.etaText(now, ", "))
		}
		return ""
	case fleet.StageDone:
		b.stage, b.label, b.ended = string(e.Status), e.Msg, true
		if e.Msg != "" {
			return string(e.Status) + ": " + e.Msg
		}
		return string(e.Status)
	case fleet.StageLease:
		b.stage, b.label = e.Stage, ""
		return e.Msg // "waiting for run 41 (nightly, host ci-3, since 02:00:00)"
	}
	b.stage, b.label = e.Stage, e.Msg // a new phase: the last one's text goes with it
	if e.Msg != "" {
		return fleet.Phase(e.Stage) + ": " + e.Msg
	}
	return fleet.Phase(e.Stage)
}

// view is the bar's text at now.
func (b *boardState) view(now time.Time) boardView {
	b.mu.Lock()
	defer b.mu.Unlock()
	phase := fleet.Phase(b.stage)
	if b.ended {
		phase = b.stage // the board's status
	}
	return boardView{phase: phase, label: report.Printable(b.label), eta: b.etaText(now, "")} // a board's words, shown, never acted on
}

// etaText is the time left in words after sep ("about 25 s left"), "" when it cannot be estimated or the sweep
// has ended.
func (b *boardState) etaText(now time.Time, sep string) string {
	if !b.estimate || b.total == 0 || b.done >= b.total {
		return ""
	}
	return sep + leftText(b.eta.Left(b.total, now))
}

// leftText is a time left in the words of the progress: to the 5 s under a minute, to the minute under an hour,
// then hours and minutes: "about 25 s left", "about 4 min left", "about 1 h 5 min left", "a few seconds left".
func leftText(d time.Duration) string {
	switch s := d.Seconds(); {
	case s < 5:
		return "a few seconds left"
	case math.Round(s/5)*5 < 60:
		return fmt.Sprintf("about %d s left", int(math.Round(s/5)*5))
	case s < 3600:
		return fmt.Sprintf("about %d min left", int(math.Round(s/60)))
	default:
		m := int(math.Round(s / 60))
		if m%60 == 0 {
			return fmt.Sprintf("about %d h left", m/60)
		}
		return fmt.Sprintf("about %d h %d min left", m/60, m%60)
	}
}
