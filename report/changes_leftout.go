package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// What the change search leaves out is counted here, per board, so that every front end can say how much and
// why: a series of six runs that were all invalid is not "fewer than six runs", and a lab whose every point is
// invalid must read that, with what to do, instead of "no change".

// Reasons of a LeftOut.
const (
	LeftOutShort   = "too few runs"  // series with fewer than 2 × MinSegment runs at all
	LeftOutInvalid = "invalid"       // series with enough runs, too few with a valid point: invalid ones among them
	LeftOutFailed  = "failed"        // series with enough runs, too few with a usable point: failed ones, none invalid
	LeftOutRuns    = "runs left out" // runs and points of searched series not used
)

// LeftOut is one group of what the change search of a board did not use: series not searched (Series of them,
// each with Runs runs of which InvalidRuns and FailedRuns had no usable point), or, for LeftOutRuns, the runs and
// points left out of the board's searched series (summed over them). Note is the sentence the text prints.
type LeftOut struct {
	Board         string   `json:"board"`
	Reason        string   `json:"reason"` // LeftOutShort, LeftOutInvalid, LeftOutFailed, LeftOutRuns
	Series        int      `json:"series"`
	Runs          int      `json:"runs,omitempty"`           // of each series not searched for invalid or failed points
	InvalidRuns   int      `json:"invalid_runs,omitempty"`   // runs whose points of the series were all invalid
	FailedRuns    int      `json:"failed_runs,omitempty"`    // runs whose points of the series all failed (or had no usable throughput)
	InvalidPoints int      `json:"invalid_points,omitempty"` // LeftOutRuns: invalid points of runs kept by their valid ones
	FailedPoints  int      `json:"failed_points,omitempty"`  // LeftOutRuns: failed points of runs kept
	Causes        []string `json:"causes,omitempty"`         // of the invalid points, with their range: "background CPU 60–90 %"
	Advice        string   `json:"advice,omitempty"`         // what to do about them
	Note          string   `json:"note"`
}

type seriesKind int

const (
	seriesSearched seriesKind = iota
	seriesShort
	seriesUnusable // enough runs, too few with a usable point
)

// seriesOutcome is what the search made of one series.
type seriesOutcome struct {
	changes, notJudged []Change
	kind               seriesKind
	runs               int // runs with any point of the series
	invalidRuns        int // of them, without a usable point and with invalid ones
	failedRuns         int // of them, without a usable point nor an invalid one (failed, zero throughput)
	invalidPoints      int // invalid points of runs kept by their usable ones
	failedPoints       int // failed points of runs kept
	reasons            []string
	warning            string
}

// count adds one night of the series; usable says whether it has a usable point.
func (o *seriesOutcome) count(n store.Night, usable bool) {
	if len(n.Values)+n.Invalid+n.Failed == 0 {
		return
	}
	o.runs++
	switch {
	case usable:
		o.invalidPoints += n.Invalid
		o.failedPoints += n.Failed
	case n.Invalid > 0:
		o.invalidRuns++
	default:
		o.failedRuns++
	}
	for _, r := range n.InvalidReasons {
		o.reasons = appendNew(o.reasons, r)
	}
}

func (o *seriesOutcome) causes() []string { return validityCauses(o.reasons) }

// unusableShape groups the series not searched that look alike: their runs and how many had no usable point.
type unusableShape struct{ runs, invalid, failed int }

// boardLeftOut accumulates one board's series.
type boardLeftOut struct {
	short        int
	shortReasons []string
	shapes       map[unusableShape]int
	shapeReasons map[unusableShape][]string
	runs         LeftOut // LeftOutRuns, summed over the searched series
	runsReasons  []string
}

// leftOutAccount accumulates what the search left out, per board.
type leftOutAccount map[string]*boardLeftOut

func (a *leftOutAccount) add(board string, o seriesOutcome) {
	if *a == nil {
		*a = leftOutAccount{}
	}
	b := (*a)[board]
	if b == nil {
		b = &boardLeftOut{shapes: map[unusableShape]int{}, shapeReasons: map[unusableShape][]string{}}
		(*a)[board] = b
	}
	switch o.kind {
	case seriesShort:
		b.short++
		b.shortReasons = appendAll(b.shortReasons, o.reasons)
	case seriesUnusable:
		k := unusableShape{o.runs, o.invalidRuns, o.failedRuns}
		b.shapes[k]++
		b.shapeReasons[k] = appendAll(b.shapeReasons[k], o.reasons)
	default:
		if o.invalidRuns+o.failedRuns+o.invalidPoints+o.failedPoints > 0 {
			b.runs.Series++
			b.runs.InvalidRuns += o.invalidRuns
			b.runs.FailedRuns += o.failedRuns
			b.runs.InvalidPoints += o.invalidPoints
			b.runs.FailedPoints += o.failedPoints
			b.runsReasons = appendAll(b.runsReasons, o.reasons)
		}
	}
}

// leftOut lists the groups, by board: series too short, series not searched (most series first), runs of
// searched series.
func (a leftOutAccount) leftOut(minSeg int) []LeftOut {
	boards := make([]string, 0, len(a))
	for b := range a {
		boards = append(boards, b)
	}
	sort.Strings(boards)
	var out []LeftOut
	for _, board := range boards {
		b := a[board]
		if b.short > 0 {
			l := LeftOut{Board: board, Reason: LeftOutShort, Series: b.short, Causes: validityCauses(b.shortReasons)}
			l.Note = fmt.Sprintf("%s: %d series with fewer than %d runs not searched: a change needs %d runs on each side",
				board, b.short, 2*minSeg, minSeg)
			out = append(out, l)
		}
		shapes := make([]unusableShape, 0, len(b.shapes))
		for k := range b.shapes {
			shapes = append(shapes, k)
		}
		sort.Slice(shapes, func(i, j int) bool {
			x, y := shapes[i], shapes[j]
			if b.shapes[x] != b.shapes[y] {
				return b.shapes[x] > b.shapes[y]
			}
			return x.runs > y.runs || x.runs == y.runs && (x.invalid > y.invalid || x.invalid == y.invalid && x.failed > y.failed)
		})
		for _, k := range shapes {
			out = append(out, unusableLeftOut(board, k, b.shapes[k], validityCauses(b.shapeReasons[k]), minSeg))
		}
		if b.runs.Series > 0 {
			out = append(out, runsLeftOut(board, b.runs, validityCauses(b.runsReasons)))
		}
	}
	return out
}

// unusableLeftOut is n series of one board with the same shape, not searched: "am64x: 12 series not searched:
// all 6 runs invalid: background CPU 60–90 %; a change needs 3 valid runs on each side: run on a quiet board, …".
func unusableLeftOut(board string, k unusableShape, n int, causes []string, minSeg int) LeftOut {
	l := LeftOut{Board: board, Reason: LeftOutInvalid, Series: n, Runs: k.runs, InvalidRuns: k.invalid, FailedRuns: k.failed,
		Causes: causes, Advice: validityAdvice(board, causes)}
	if k.invalid == 0 {
		l.Reason = LeftOutFailed
	}
	var runs string
	switch {
	case k.invalid == k.runs:
		runs = fmt.Sprintf("all %d runs invalid", k.runs)
	case k.failed == k.runs:
		runs = fmt.Sprintf("all %d runs failed", k.runs)
	case k.invalid+k.failed == k.runs:
		runs = fmt.Sprintf("all %d runs invalid (%d) or failed (%d)", k.runs, k.invalid, k.failed)
	case k.invalid == 0:
		runs = fmt.Sprintf("%d of %d runs failed", k.failed, k.runs)
	default:
		runs = fmt.Sprintf("%d of %d runs invalid", k.invalid, k.runs)
		if k.failed > 0 {
			runs += fmt.Sprintf(", %d failed", k.failed)
		}
	}
	if len(causes) > 0 {
		runs += ": " + strings.Join(causes, ", ")
	}
	l.Note = fmt.Sprintf("%s: %d series not searched: %s; a change needs %d usable runs on each side", board, n, runs, minSeg)
	if l.Advice != "" {
		l.Note += ": " + l.Advice
	}
	return l
}

// runsLeftOut is what the searched series of a board did not use: "am64x: of 12 series searched, 3 runs left
// out (every point invalid: background CPU 20–31 %) …".
func runsLeftOut(board string, l LeftOut, causes []string) LeftOut {
	l.Board, l.Reason, l.Causes = board, LeftOutRuns, causes
	var parts []string
	if l.InvalidRuns > 0 {
		parts = append(parts, fmt.Sprintf("%d run(s) whose points were all invalid", l.InvalidRuns))
	}
	if l.FailedRuns > 0 {
		parts = append(parts, fmt.Sprintf("%d run(s) whose points all failed", l.FailedRuns))
	}
	if l.InvalidPoints > 0 {
		parts = append(parts, fmt.Sprintf("%d invalid point(s) of runs kept", l.InvalidPoints))
	}
	if l.FailedPoints > 0 {
		parts = append(parts, fmt.Sprintf("%d failed point(s) of runs kept", l.FailedPoints))
	}
	l.Note = fmt.Sprintf("%s: %d searched series had %s left out", board, l.Series, strings.Join(parts, ", "))
	if len(causes) > 0 {
		l.Advice = validityAdvice(board, causes)
		l.Note += "; invalid: " + strings.Join(causes, ", ") + ": " + l.Advice
	}
	return l
}

// notJudgedChanges are the steps of all (the nights with the invalid points counted too) that the judged
// search did not find, where an invalid night lies on either side: what a chart shows as "not judged".
func notJudgedChanges(h *store.Histories, s *store.SeriesHistory, key SampleKey, all []nightValue, judged []Change,
	opts ChangeOptions, causes []string) []Change {
	at := map[int64]int{}
	for i, n := range all {
		at[n.run] = i
	}
	reason := LeftOutInvalid
	if len(causes) > 0 {
		reason += ": " + strings.Join(causes, ", ")
	}
	var out []Change
	for _, c := range nightChanges(h, s, key, all, opts) {
		i := at[c.Run]
		near := false
		for _, j := range judged {
			if k, ok := at[j.Run]; ok && k-i <= 1 && i-k <= 1 {
				near = true
			}
		}
		invalid := false
		for _, n := range all[i-c.NightsBefore : i+c.NightsAfter] {
			invalid = invalid || n.invalid
		}
		if near || !invalid {
			continue
		}
		c.NotJudged = reason
		out = append(out, c)
	}
	return out
}

func appendAll(ss, add []string) []string {
	for _, s := range add {
		ss = appendNew(ss, s)
	}
	return ss
}
