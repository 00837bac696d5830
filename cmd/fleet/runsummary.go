package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
	"github.com/fleetlab/fleet/validity"
)

// The end of fleet run says one thing per board, once: its status agrees with its points' validity (a board
// whose points are all invalid reads "invalid", not "ok" and then "invalid" below), its counts are those of the
// lines under it, the first verification line says what was verified, and a board that needs something done
// ends with one "to do" line. Every line fits summaryWidth columns; a longer one is folded under its own indent.

// boardValidity is what the store judged of a board run's points; zero when it was not judged.
type boardValidity struct {
	verdict string   // ok, suspect, invalid; "" not judged
	reasons []string // the board run's reasons, in plain words
	judged  store.Judged
}

// printRunSummary prints the run's summary on w (stderr): each board's outcome with its validity as stored.
func printRunSummary(ctx context.Context, w io.Writer, db *store.DB, runID int64, outs []fleet.BoardOutcome) {
	judged := map[string]boardValidity{}
	if brs, err := db.BoardRuns(ctx, runID); err == nil { // else the outcomes say what went wrong
		for _, br := range brs {
			judged[br.Board] = boardValidity{verdict: br.Validity, reasons: br.ValidityReasons, judged: br.Judged}
		}
	}
	for _, l := range runSummary(runID, outs, judged) {
		fmt.Fprintln(w, l)
	}
}

// runSummary is the lines of the run's summary.
func runSummary(runID int64, outs []fleet.BoardOutcome, judged map[string]boardValidity) []string {
	lines := []string{fmt.Sprintf("run %d:", runID)}
	explained := false // the first verification line says what a path is
	for _, o := range outs {
		lines = append(lines, boardSummary(o, judged[o.Board], !explained)...)
		explained = explained || o.Verification.Paths > 0
	}
	return lines
}

// boardSummary is one board's lines: the headline, then what it needs said, indented.
func boardSummary(o fleet.BoardOutcome, v boardValidity, explain bool) []string {
	const indent = "      "
	var unexplainedSkips []protocol.Skip
	for _, s := range o.Skipped {
		if unexplained(o.Modes, s.Mode, s.Algorithm) {
			// what the board said (its skips' reasons) is made Printable, piece by piece
			s.Mode, s.Algorithm, s.Reason = report.Printable(s.Mode), report.Printable(s.Algorithm), report.Printable(s.Reason)
			unexplainedSkips = append(unexplainedSkips, s)
		}
	}
	// the board's name, its facts and its errors are its own words: shown, never acted on by the terminal
	o.Board, o.Summary = report.Printable(o.Board), report.Printable(o.Summary)
	o.Cause, o.FailedWhy = report.Printable(o.Cause), report.Printable(o.FailedWhy)
	head := fmt.Sprintf("  %-14s %-11s %s", o.Board, report.StatusWord(string(o.Status), v.verdict), boardCounts(o, v, len(unexplainedSkips)))
	factsLine := ""
	if o.Summary != "" { // beside the counts when it fits, else under the cause
		if withFacts := head + "  (" + o.Summary + ")"; width(withFacts) <= summaryWidth {
			head = withFacts
		} else {
			factsLine = indent + o.Summary
		}
	}
	lines := fold(head, indent)
	if o.Cause != "" {
		lines = appendFolded(lines, indent+"cause: "+report.PlainReason(o.Cause), indent+"  ")
	}
	if factsLine != "" {
		lines = appendFolded(lines, factsLine, indent+"  ")
	}
	if o.FailedWhy != "" && !strings.Contains(o.Cause, o.FailedWhy) { // the cause says it when nothing was measured
		lines = appendFolded(lines, indent+report.PlainReason(o.FailedWhy), indent+"  ")
	}
	if o.Summary != "" { // the probe spoke: say what became of every mode
		for _, l := range modeSummary(o.Modes, true, indent) {
			lines = appendFolded(lines, l, indent+"    ")
		}
	}
	if vf := o.Verification; vf.Paths > 0 {
		what := fmt.Sprintf("outputs checked on %d paths", vf.Paths)
		if explain {
			what += " (mode × algorithm)"
		}
		lines = appendFolded(lines, fmt.Sprintf("%s%s: %s; %.1f s on the board", indent, what, vf.Counts(), vf.Seconds), indent+"  ")
	}
	// once per board (each point carries the reason too; compare shows "–"), unless the cause said it
	if o.EnergyUnknown != "" && !strings.Contains(o.Cause, report.Printable(o.EnergyUnknown)) {
		lines = appendFolded(lines, indent+"energy: unknown: "+report.PlainReason(report.Printable(o.EnergyUnknown)), indent+"  ")
	}
	for _, s := range unexplainedSkips {
		what := s.Mode
		if s.Algorithm != "" {
			what += " " + s.Algorithm
		}
		lines = appendFolded(lines, indent+"not measured: "+what+": "+report.PlainReason(s.Reason), indent+"  ")
	}
	if v.verdict != "" && v.verdict != protocol.ValidityOK {
		for i, r := range v.reasons { // one reason a line: each has its own figures and limits in parentheses
			lead := indent + "validity: "
			if i > 0 {
				lead = strings.Repeat(" ", width(lead))
			}
			lines = appendFolded(lines, lead+r, strings.Repeat(" ", width(lead)+2))
		}
	}
	if todo := boardToDo(o, v); todo != "" {
		lines = appendFolded(lines, indent+"to do: "+todo, indent+"  ")
	}
	return lines
}

// boardCounts is "24 points, all invalid; 3 modes not available, 1 not measured": the counts of what the lines
// under it list, so that they agree by construction.
func boardCounts(o fleet.BoardOutcome, v boardValidity, notMeasured int) string {
	s := fmt.Sprintf("%d points", o.Points)
	switch j := v.judged; {
	case j.Invalid > 0 && j.Invalid == o.Points:
		s += ", all invalid"
	case j.Invalid > 0:
		s += fmt.Sprintf(", %d invalid", j.Invalid)
	}
	if j := v.judged; j.Suspect > 0 {
		s += fmt.Sprintf(", %d suspect", j.Suspect)
	}
	if o.Failed > 0 {
		s += fmt.Sprintf(", %d failed", o.Failed)
	}
	var more []string
	switch n := len(o.Modes.Unavailable); n {
	case 0:
	case 1:
		more = append(more, "1 mode not available")
	default:
		more = append(more, fmt.Sprintf("%d modes not available", n))
	}
	if notMeasured > 0 {
		more = append(more, fmt.Sprintf("%d not measured", notMeasured))
	}
	if len(more) > 0 {
		s += "; " + strings.Join(more, ", ")
	}
	return s
}

// boardToDo is what to do about a board, "" when nothing needs doing: for points judged invalid or suspect,
// what takes away their causes (report.ValidityAdvice, as regress gives it); for a board that did not end ok,
// where to look.
func boardToDo(o fleet.BoardOutcome, v boardValidity) string {
	var todo []string
	if v.verdict == protocol.ValidityInvalid || v.verdict == protocol.ValiditySuspect {
		causes := append(append([]string(nil), v.judged.InvalidCauses...), v.judged.SuspectCauses...)
		if len(causes) == 0 {
			causes = validity.Causes(v.reasons)
		}
		todo = append(todo, report.ValidityAdvice(o.Board, causes))
	}
	switch o.Status {
	case protocol.StatusOK:
	case protocol.StatusInterrupted:
		todo = append(todo, "run again to measure the rest; what was measured is stored")
	default:
		if o.Points == 0 {
			todo = append(todo, "fix the cause above and run again")
		} else {
			todo = append(todo, "fix the cause above and run again; what was measured is stored (fleet show latest)")
		}
	}
	return strings.Join(todo, "; ")
}
