package serve

import (
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// The words and colours of a run's or board's state are decided here, once, for every page: a page prints
// state.Word in an element of class state.Class, and fleet.css colours the classes (.state-ok green,
// .state-suspect and .state-interrupted amber, .state-invalid, .state-failed and .state-partial red,
// .state-running blue). A status says how a run ended and its points' verdicts whether its numbers can be
// trusted; the state is the worse of the two in one word, so that a run that ended "ok" with every point
// invalid reads "invalid" in red, never a red "ok", and one whose controller died reads "interrupted", never
// "running for 3 days".

// state is a run's or board's state as the dashboard names it.
type state string

const (
	stateRunning     state = "running"     // its controller holds its leases
	stateInterrupted state = "interrupted" // stopped before the end: Ctrl-C, or its controller is gone
	stateFailed      state = "failed"      // nothing measured
	statePartial     state = "partial"     // some boards or points failed
	stateInvalid     state = "invalid"     // ended, but every judged point was invalid: nothing to judge by
	stateSuspect     state = "suspect"     // ended, but some points were suspect or invalid
	stateOK          state = "ok"          // ended, every judged point ok (or none judged)
	stateImported    state = "imported"    // a capture imported from elsewhere
	stateReference   state = "reference"   // a vendor's published table, never a measurement
)

// Word is what the page prints.
func (s state) Word() string { return string(s) }

// Class is the CSS class that colours it; none for no state (a validity cell of unjudged points).
func (s state) Class() string {
	if s == "" {
		return ""
	}
	return "state-" + string(s)
}

// stateLegend is the meaning of each state in the order the runs page explains them.
func stateLegend() []struct {
	State   state
	Meaning string
} {
	return []struct {
		State   state
		Meaning string
	}{
		{stateRunning, "its controller still holds its boards"},
		{stateInterrupted, "stopped before the end (Ctrl-C, or its controller is gone)"},
		{stateFailed, "nothing measured"},
		{statePartial, "some boards failed"},
		{stateInvalid, "ended, but every point was judged invalid (busy, throttled or hot board): regress never judges it"},
		{stateSuspect, "ended, but some points were judged suspect or invalid"},
		{stateOK, "ended, every judged point ok"},
		{stateImported, "a capture imported from elsewhere"},
		{stateReference, "a vendor's published table (fleet import --reference), never a measurement"},
	}
}

// validityState is the colour of a validity cell: invalid when every point was judged invalid, suspect when
// some were suspect or invalid, ok when every judged one was ok, "" when none was judged (imports).
func validityState(points int, j store.Judged) state {
	switch {
	case j.Invalid > 0 && j.Invalid >= points:
		return stateInvalid
	case j.Invalid > 0 || j.Suspect > 0:
		return stateSuspect
	case j.OK > 0:
		return stateOK
	}
	return ""
}

// runState is a run's state: gone says its controller is gone (store.DB.GoneRuns). A run that ended ok or was
// imported takes its points' validity when that is worse.
func runState(r store.Run, gone bool) state {
	return statusState(r.Status, gone, r.Points, r.Judged)
}

// boardState is a board run's state within a run whose controller may be gone.
func boardState(br store.BoardRun, gone bool) state {
	return statusState(br.Status, gone, br.Points, br.Judged)
}

func statusState(st protocol.Status, gone bool, points int, j store.Judged) state {
	switch st {
	case protocol.StatusRunning:
		if gone {
			return stateInterrupted
		}
		return stateRunning
	case protocol.StatusInterrupted:
		return stateInterrupted
	case protocol.StatusFailed:
		return stateFailed
	case protocol.StatusPartial:
		return statePartial
	case protocol.StatusReference:
		return stateReference
	}
	if v := validityState(points, j); v == stateInvalid || v == stateSuspect {
		return v
	}
	if st == protocol.StatusImported {
		return stateImported
	}
	return stateOK
}
