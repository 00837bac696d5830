package report

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/reftable"
	"github.com/fleetlab/fleet/store"
)

// ReferenceOptions select what CompareReference puts beside a reference.
type ReferenceOptions struct {
	// Board is the reference's board to compare every selected measured board with, whatever it is; "": each
	// measured board with the reference board of its name or its SoC, and none with another's.
	Board                     string
	Boards, Modes, Algorithms []string
	Unit                      string
	// SoCs are the measured boards' SoCs where the lab says them (boards.toml's soc): "AM64x" matches a
	// reference board "am64x-evm".
	SoCs map[string]string
}

// ReferenceRow is one measured series beside the reference figure it matches.
type ReferenceRow struct {
	SampleKey
	N               int     `json:"n"`
	Median          float64 `json:"median"`                  // bytes/s, or ops/s for asymmetric operations
	CPUPct          float64 `json:"cpu_pct,omitempty"`       // median CPU % of the measured points; 0 (left out) when unknown (an import)
	CPUTimed        bool    `json:"cpu_timed,omitempty"`     // the throughput is a wall-time estimate of a CPU-timed run (†)
	ReferenceBoard  string  `json:"reference_board"`         // the reference's board
	ReferenceMode   string  `json:"reference_mode"`          // the reference's mode (accelerator matches any accelerated mode)
	Reference       float64 `json:"reference"`               // the published figure, bytes/s or ops/s
	ReferenceMin    float64 `json:"reference_min,omitempty"` // the published range, when there is one
	ReferenceMax    float64 `json:"reference_max,omitempty"`
	ReferenceCPUPct float64 `json:"reference_cpu_pct,omitempty"` // the published CPU %, 0 when none
	ReferenceCPUMin float64 `json:"reference_cpu_min,omitempty"` // the published CPU % range, when there is one
	ReferenceCPUMax float64 `json:"reference_cpu_max,omitempty"`
	Matched         string  `json:"matched"`        // why the boards were set side by side: same board, same SoC am64x, --reference-board
	Percent         float64 `json:"percent"`        // Median / Reference × 100
	Note            string  `json:"note,omitempty"` // e.g. the measured points' validity
}

// ReferenceComparison is measured boards beside a reference.
type ReferenceComparison struct {
	Label     string         `json:"reference"`
	RunID     int64          `json:"reference_run"`
	Source    string         `json:"source"`
	Boards    []string       `json:"reference_boards"`
	Unit      string         `json:"unit"`
	Rows      []ReferenceRow `json:"rows"`
	Unmatched []SampleKey    `json:"unmatched"` // measured series the reference has no figure for
	// NotCompared are the measured boards that are not the reference's board (by name or SoC): left out.
	NotCompared []string `json:"not_compared"`
	Notes       []string `json:"notes"`
}

// ErrNoReferenceMatch means no measured series matched any figure of the reference.
var ErrNoReferenceMatch = errors.New("no measured series matches the reference")

// refKey is what a measured series and a reference figure must share, besides the board and mode.
type refKey struct {
	alg, op, curve      string
	size, bits, threads int
}

func refKeyOf(k SampleKey) refKey {
	return refKey{k.Algorithm, k.Op, k.Curve, k.BlockSize, k.KeyBits, k.Threads}
}

// CompareReference matches measured series with the reference run's figures by algorithm, operation, size,
// threads and mode (a reference mode "accelerator" matches every accelerated mode), and by board: opts.Board
// for every measured board when given, else the reference board of the measured board's name, else the one of
// its SoC (referenceFor); a measured board that is none of the reference's is left out and named (NotCompared),
// and when no board is left the error says so. Failed points are
// left out of the measured medians; suspect and invalid ones are kept and the row says so, as compare's tables do.
func CompareReference(measured []store.Measurement, ref store.Run, refPoints []store.Measurement, opts ReferenceOptions) (*ReferenceComparison, error) {
	unit, err := canonicalUnit(opts.Unit)
	if err != nil {
		return nil, err
	}
	if ref.Status != protocol.StatusReference {
		return nil, fmt.Errorf("run %d is no reference (status %s)", ref.ID, ref.Status)
	}
	c := &ReferenceComparison{Label: ref.Label, RunID: ref.ID, Source: ref.Source, Unit: unit}
	figures := map[string]map[refKey][]store.Measurement{} // reference board → key → figures (one per mode)
	for _, m := range refPoints {
		if figures[m.Board] == nil {
			figures[m.Board] = map[refKey][]store.Measurement{}
			c.Boards = append(c.Boards, m.Board)
		}
		k := refKeyOf(keyOf(m))
		figures[m.Board][k] = append(figures[m.Board][k], m)
	}
	sort.Strings(c.Boards)
	if opts.Board != "" && figures[opts.Board] == nil {
		return nil, fmt.Errorf("reference %s has no board %q (it has %s)", ref.Label, opts.Board, strings.Join(c.Boards, ", "))
	}
	var kept []store.Measurement
	for _, m := range measured {
		if !selected(m, opts) {
			continue
		}
		kept = append(kept, m)
	}
	samples, _ := Group(kept)
	left := map[string]bool{}
	for _, s := range samples {
		refBoard, how := referenceFor(s.Key.Board, opts.SoCs[s.Key.Board], opts.Board, c.Boards)
		if refBoard == "" {
			left[s.Key.Board] = true
			continue
		}
		fig := matchMode(figures[refBoard][refKeyOf(s.Key)], s.Key.Mode)
		if fig == nil {
			c.Unmatched = append(c.Unmatched, s.Key)
			continue
		}
		c.Rows = append(c.Rows, referenceRow(s, refBoard, how, fig))
	}
	c.NotCompared = sortedBoards(left)
	if len(c.NotCompared) > 0 {
		c.Notes = append(c.Notes, notComparedNote(ref.Label, c.NotCompared, c.Boards, opts.SoCs))
	}
	if len(c.Rows) == 0 {
		if len(c.NotCompared) > 0 && len(c.Unmatched) == 0 {
			return c, fmt.Errorf("%w %s: %s", ErrNoReferenceMatch, ref.Label, c.Notes[len(c.Notes)-1])
		}
		return c, fmt.Errorf("%w %s (its boards %s; match by mode, algorithm, size and threads)", ErrNoReferenceMatch, ref.Label, strings.Join(c.Boards, ", "))
	}
	sort.SliceStable(c.Rows, func(i, j int) bool { return referenceLess(c.Rows[i].SampleKey, c.Rows[j].SampleKey) })
	per, _ := bytesPerUnit(unit)
	c.Notes = append(c.Notes, fmt.Sprintf("%s is %s bytes per second on both sides: the reference's units were converted "+
		"when it was imported (MB/s = 10^6 B/s, KB/s = 1000 B/s as openssl's k); %% of %s is the measured median over the published figure",
		unit, strconvG(per), ref.Label))
	if slices.ContainsFunc(c.Rows, func(r ReferenceRow) bool { return r.ReferenceMode == protocol.ModeReferenceAccelerator }) {
		c.Notes = append(c.Notes, "the reference's accelerator column names no interface: it stands beside every accelerated mode measured")
	}
	if slices.ContainsFunc(c.Rows, func(r ReferenceRow) bool { return r.CPUTimed }) {
		c.Notes = append(c.Notes, noteCPUTimed)
	}
	if slices.ContainsFunc(c.Rows, func(r ReferenceRow) bool { return r.CPUPct == 0 }) {
		c.Notes = append(c.Notes, "CPU –: not known for those points (an import without CPU times)")
	}
	if slices.ContainsFunc(c.Rows, func(r ReferenceRow) bool { return r.ReferenceCPUPct > 0 }) {
		c.Notes = append(c.Notes, "published CPU % is the vendor's own measure, which may be the whole system's load rather than the process tree's")
	}
	return c, nil
}

// matchMode is the figure of mode, else the accelerator figure for an accelerated mode; nil when none.
func matchMode(figs []store.Measurement, mode string) *store.Measurement {
	for i := range figs {
		if figs[i].Mode == mode {
			return &figs[i]
		}
	}
	for i := range figs {
		if figs[i].Mode == protocol.ModeReferenceAccelerator && protocol.IsAccelerated(mode) && mode != protocol.ModeSSH {
			return &figs[i]
		}
	}
	return nil
}

func referenceRow(s *Sample, refBoard, how string, fig *store.Measurement) ReferenceRow {
	sum := s.Summary()
	r := ReferenceRow{SampleKey: s.Key, N: sum.N, Median: sum.Median, CPUPct: s.CPU(), CPUTimed: s.CPUTimed,
		ReferenceBoard: refBoard, ReferenceMode: fig.Mode, ReferenceMin: fig.PublishedMin, ReferenceMax: fig.PublishedMax,
		ReferenceCPUPct: fig.CPUPct, Matched: how}
	r.ReferenceCPUMin, r.ReferenceCPUMax, _ = reftable.CPURange(fig.Flags)
	r.Reference = fig.BytesPerSec
	if s.Key.Asym() {
		r.Reference = fig.OpsPerSec
	}
	if r.Reference > 0 {
		r.Percent = sum.Median / r.Reference * 100
	}
	var notes []string
	if s.Invalid > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d points invalid (%s)", s.Invalid, sum.N, firstOf(s.InvalidReasons)))
	}
	if s.Suspect > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d points suspect (%s)", s.Suspect, sum.N, firstOf(s.SuspectReasons)))
	}
	if s.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed points left out", s.Failed))
	}
	r.Note = strings.Join(notes, "; ")
	return r
}

func selected(m store.Measurement, o ReferenceOptions) bool {
	return (len(o.Boards) == 0 || slices.Contains(o.Boards, m.Board)) && (len(o.Modes) == 0 || slices.Contains(o.Modes, m.Mode)) &&
		(len(o.Algorithms) == 0 || slices.Contains(o.Algorithms, m.Algorithm))
}

// referenceLess is the order of a reference comparison's lines, the one ordering of SampleKey besides keyLess
// (every table, regression, history and change list), and named apart because it differs on purpose: a
// vendor's table is read down one mode's column of sizes, so the lines of a board's algorithm come mode by
// mode, each with its sizes in a run, where keyLess puts a size's modes side by side (as the comparison's
// columns stand). Mode and operation compare as text here, not in keyLess's vendor-guide rank, as compare
// --reference has printed them from the start (its golden files hold that order). Within one board, algorithm,
// operation and mode the two agree: threads, key bits, curve, block size.
func referenceLess(a, b SampleKey) bool {
	switch {
	case a.Board != b.Board:
		return a.Board < b.Board
	case a.Algorithm != b.Algorithm:
		return a.Algorithm < b.Algorithm
	case a.Op != b.Op:
		return a.Op < b.Op
	case a.Mode != b.Mode:
		return a.Mode < b.Mode
	}
	return keyLess(a, b)
}

// firstOf is the first reason, with how many others there are.
func firstOf(reasons []string) string {
	switch len(reasons) {
	case 0:
		return "no reason given"
	case 1:
		return reasons[0]
	}
	return fmt.Sprintf("%s, and %d more", reasons[0], len(reasons)-1)
}
