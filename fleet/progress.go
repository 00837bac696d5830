package fleet

import "github.com/fleetlab/fleet/protocol"

// Stages of one board's part of a run, in order.
const (
	StageLease   = "lease" // waiting for another run's lease on the board; Msg names the holder
	StageConnect = "connect"
	StageDeploy  = "deploy"
	StageProbe   = "probe"
	StageSweep   = "sweep"
	StageDone    = "done"
)

// Event is progress of one board, for people: a live bar on a terminal, timestamped lines otherwise.
type Event struct {
	Board     string
	Stage     string
	Done      int // points (and skipped points) so far
	Total     int // points planned
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
