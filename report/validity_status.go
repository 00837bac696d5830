package report

import (
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// A run's status says how it ended (ok, partial, failed); its points' verdicts say whether its numbers can be
// trusted. Every front end shows both together, in one word first (StatusWord), so that a run that ended with
// every point invalid never reads "ok" anywhere: "invalid — 24 of 24 points invalid: background CPU".

// judgedText says how many of points were judged suspect or invalid and why: "24 of 24 points invalid:
// background CPU; 2 suspect: temperature", "" when none was.
func judgedText(points int, j store.Judged) string {
	var parts []string
	if j.Invalid > 0 {
		parts = append(parts, withCauses(fmt.Sprintf("%d of %d points invalid", j.Invalid, points), j.InvalidCauses))
	}
	if j.Suspect > 0 {
		s := fmt.Sprintf("%d suspect", j.Suspect)
		if j.Invalid == 0 {
			s = fmt.Sprintf("%d of %d points suspect", j.Suspect, points)
		}
		parts = append(parts, withCauses(s, j.SuspectCauses))
	}
	return strings.Join(parts, "; ")
}

func withCauses(s string, causes []string) string {
	if len(causes) == 0 {
		return s
	}
	return s + ": " + strings.Join(causes, ", ")
}

// StatusWord is a run's or board run's status in one word: how it ended (partial, failed, interrupted), or, when
// it ended ok, whether its numbers can be kept: the worst verdict of its points when that is suspect or invalid.
// The run summary, show, runs and the dashboard all say this same word.
func StatusWord(status, verdict string) string {
	if status == string(protocol.StatusOK) && (verdict == protocol.ValidityInvalid || verdict == protocol.ValiditySuspect) {
		return verdict
	}
	return status
}

// StatusHeadline is a run's or board run's status word with its points' validity: "invalid — 24 of 24 points
// invalid: background CPU", or the status alone when no point was judged suspect or invalid.
func StatusHeadline(status string, points int, j store.Judged) string {
	if t := judgedText(points, j); t != "" {
		return StatusWord(status, Verdict(j)) + " — " + t
	}
	return status
}

// RunHeadline is StatusHeadline of a run (a running run of another process reads "incomplete").
func RunHeadline(r store.Run) string { return StatusHeadline(runStatus(r), r.Points, r.Judged) }

// Verdict is the worst verdict among a run's points: invalid, suspect, ok, or unknown when none was judged.
func Verdict(j store.Judged) string {
	switch {
	case j.Invalid > 0:
		return protocol.ValidityInvalid
	case j.Suspect > 0:
		return protocol.ValiditySuspect
	case j.OK > 0:
		return protocol.ValidityOK
	}
	return "unknown"
}

// validityCell is the runs table's validity column: "24/24 invalid: background CPU", "ok" when every judged
// point was, "-" when none was judged (imports, older agents).
func validityCell(points int, j store.Judged) string {
	var parts []string
	if j.Invalid > 0 {
		parts = append(parts, withCauses(fmt.Sprintf("%d/%d invalid", j.Invalid, points), j.InvalidCauses))
	}
	if j.Suspect > 0 {
		parts = append(parts, withCauses(fmt.Sprintf("%d/%d suspect", j.Suspect, points), j.SuspectCauses))
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, "; ")
	case j.OK > 0:
		return "ok"
	}
	return "-"
}

// validityJSON is a run's or board run's validity in the JSON listings.
type validityJSON struct {
	Verdict       string   `json:"verdict"` // the worst of the points': invalid, suspect, ok, or unknown when none was judged
	OK            int      `json:"ok"`
	Suspect       int      `json:"suspect"`
	Invalid       int      `json:"invalid"`
	Unjudged      int      `json:"unjudged"` // imports and older agents' points
	InvalidCauses []string `json:"invalid_causes"`
	SuspectCauses []string `json:"suspect_causes"`
	Headline      string   `json:"headline"` // as the text shows it: "invalid — 24 of 24 points invalid: background CPU"
}

func newValidityJSON(status string, points int, j store.Judged) validityJSON {
	v := validityJSON{Verdict: Verdict(j), OK: j.OK, Suspect: j.Suspect, Invalid: j.Invalid,
		Unjudged: max(points-j.OK-j.Suspect-j.Invalid, 0), InvalidCauses: j.InvalidCauses, SuspectCauses: j.SuspectCauses,
		Headline: StatusHeadline(status, points, j)}
	if v.InvalidCauses == nil {
		v.InvalidCauses = []string{}
	}
	if v.SuspectCauses == nil {
		v.SuspectCauses = []string{}
	}
	return v
}

// RunValidity is what a page shows beside a run's status: the judged points in words ("24 of 24 points
// invalid: background CPU", "" when none was suspect or invalid), the runs list's short form ("24/24 invalid:
// background CPU", "ok", "-") and the worst verdict (invalid, suspect, ok, unknown) for its colour.
func RunValidity(r store.Run) (text, short, verdict string) {
	return judgedText(r.Points, r.Judged), validityCell(r.Points, r.Judged), Verdict(r.Judged)
}
