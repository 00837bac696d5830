package fleet

import (
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Stages of one board's part of a run, in order. Verify and measure come after the sweep's planned event
// (StageSweep with Total set, Algorithm ""): the agent checks every path's output before it measures anything,
// and a board may spend seconds there; a front end that went on showing the deploy text meanwhile would look hung.
const (
	StageLease   = "lease" // waiting for another run's lease on the board; Msg names the holder
	StageConnect = "connect"
	StageDeploy  = "deploy"
	StageProbe   = "probe"
	StageVerify  = "verify"  // one path's output was checked: Mode, Algorithm, Msg the verdict
	StageMeasure = "measure" // a point begins: Mode, Algorithm, Size of the point in flight, Done the points before it
	StageSweep   = "sweep"   // the sweep is planned (Algorithm ""), or a point was stored (Done counts it)
	StageDone    = "done"
)

// Phase names a stage for people, as the progress shows it: "connecting", "verifying", "measuring".
func Phase(stage string) string {
	switch stage {
	case StageLease:
		return "waiting for the lease"
	case StageConnect:
		return "connecting"
	case StageDeploy:
		return "deploying"
	case StageProbe:
		return "probing"
	case StageVerify:
		return "verifying"
	case StageMeasure, StageSweep:
		return "measuring"
	}
	return stage
}

// Event is progress of one board, for people: a live bar on a terminal, timestamped lines otherwise.
type Event struct {
	Board     string
	Stage     string
	Done      int // points (and skipped points) so far
	Total     int // points planned; 0 in verify and measure events, which leave the planned total as it was
	Mode      string
	Algorithm string
	Size      int
	Msg       string          // what happened, e.g. "pushed 2.1 MB" or the cause of a failure
	Status    protocol.Status // with StageDone
}

// Progress receives events. Implementations must be safe for concurrent use: boards run in parallel.
type Progress interface {
	Event(e Event)
}

// ProgressFunc adapts a function to Progress.
type ProgressFunc func(Event)

// Event calls f(e).
func (f ProgressFunc) Event(e Event) { f(e) }

type noProgress struct{}

func (noProgress) Event(Event) {}

// DefaultPointOverhead is what a point costs beyond its planned seconds until one has been measured: starting
// openssl, its key set-up, the agent's evidence before and after, the line to the controller. Measured with
// `fleet run --boards local --trace` (quick profile, 1 s points) on this project's 2-core x86 VM: 24 points in
// 24.9 s of sweep, 1.04 s a point. A board that starts openssl more slowly corrects it with its first point.
const DefaultPointOverhead = 40 * time.Millisecond

// ETA estimates how long a board's sweep has left from its plan: the points still to measure, each taking the
// planned seconds plus a per-point overhead. Until a point has completed the overhead is Overhead; then it is
// measured, as the time the completed points took beyond their planned seconds, so the estimate follows the
// board (a slow openssl start, precision repeats that stop early) as the sweep goes.
type ETA struct {
	PerPoint time.Duration // the plan's seconds per point
	Overhead time.Duration // assumed per-point overhead before any point completed (DefaultPointOverhead)

	start    time.Time // when the first point began; zero before
	done     int       // points completed since start
	lastDone time.Time // when the last of them completed
}

// Begin records that measuring began at t (the first point's start); later calls change nothing.
func (e *ETA) Begin(t time.Time) {
	if e.start.IsZero() {
		e.start, e.lastDone = t, t
	}
}

// Completed records that done points had completed at t.
func (e *ETA) Completed(done int, t time.Time) {
	e.Begin(t)
	if done > e.done {
		e.done, e.lastDone = done, t
	}
}

// overhead is the per-point overhead: measured once points completed, never below zero (points cut short by
// openssl's own timer), else the assumed one.
func (e *ETA) overhead() time.Duration {
	if e.done == 0 {
		return max(e.Overhead, 0)
	}
	per := e.lastDone.Sub(e.start) / time.Duration(e.done)
	return max(per-e.PerPoint, 0)
}

// Left is the time the sweep of total points has left at now: the points not yet completed at the planned
// seconds plus the overhead, less what the point in flight has already run. It is never negative, and 0 when
// nothing is planned.
func (e *ETA) Left(total int, now time.Time) time.Duration {
	remaining := total - e.done
	if remaining <= 0 {
		return 0
	}
	per := e.PerPoint + e.overhead()
	left := time.Duration(remaining) * per
	if !e.start.IsZero() {
		left -= min(max(now.Sub(e.lastDone), 0), per) // the point in flight is partly done, at most all of it
	}
	return max(left, 0)
}
