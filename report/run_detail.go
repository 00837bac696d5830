package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// runDetailJSON is one run in WriteRunDetail's JSON: the run's row as in WriteRuns, each board's part, and the
// raw tool output when it was asked for.
type runDetailJSON struct {
	runJSON
	BoardRuns []boardRunJSON `json:"board_runs"`
	Raw       []rawJSON      `json:"raw,omitempty"`
}

type boardRunJSON struct {
	Board    string          `json:"board"`
	Status   string          `json:"status"`
	Error    string          `json:"error,omitempty"`
	Started  time.Time       `json:"started"`
	Finished *time.Time      `json:"finished,omitempty"` // absent while running or when the controller died
	Points   int             `json:"points"`
	Facts    *protocol.Facts `json:"facts"` // null when the probe did not get that far
	Skips    []protocol.Skip `json:"skips"`
	Validity validityJSON    `json:"validity"`
	// Changed is what differs on the board since ChangedSince, its newest earlier run with facts
	// (kernel, OpenSSL, governor, the openssl environment and configuration, kernel command line, crypto modules).
	ChangedSince int64    `json:"changed_since,omitempty"`
	Changed      []string `json:"changed,omitempty"`

	Kernel *protocol.KernelHealth `json:"kernel,omitempty"` // absent when not recorded
}

type rawJSON struct {
	Board string `json:"board"`
	protocol.Raw
}

// WriteRunDetail prints one run (fleet show): as text, WriteRunSummary; as json, one object with the run's
// fields (those of WriteRuns' json), "board_runs" with each board's status, facts and skips, and "raw" with the
// tool output when raws is not nil.
func WriteRunDetail(w io.Writer, run store.Run, boards []store.BoardRun, raws []store.RawOutput, format string) error {
	f, err := ViewShow.CheckFormat(format)
	if err != nil {
		return err
	}
	if f == FormatText {
		return WriteRunSummary(w, run, boards, raws)
	}
	out := runDetailJSON{runJSON: newRunJSON(run), BoardRuns: make([]boardRunJSON, 0, len(boards))}
	for _, br := range boards {
		b := boardRunJSON{Board: br.Board, Status: string(br.Status), Error: br.Error, Started: br.Started.UTC(),
			Points: br.Points, Facts: br.Facts, Skips: br.Skips, Validity: newValidityJSON(string(br.Status), br.Points, br.Judged),
			Kernel: br.Kernel}
		if p := br.Previous; p != nil {
			b.ChangedSince, b.Changed = p.RunID, boardChanges(p.Facts, br.Facts)
		}
		if !br.Finished.IsZero() {
			fin := br.Finished.UTC()
			b.Finished = &fin
		}
		if b.Skips == nil {
			b.Skips = []protocol.Skip{}
		}
		out.BoardRuns = append(out.BoardRuns, b)
	}
	for _, r := range raws {
		out.Raw = append(out.Raw, rawJSON{Board: r.Board, Raw: r.Raw})
	}
	if err := writeJSON(w, out); err != nil {
		return fmt.Errorf("write run %d: %w", run.ID, err)
	}
	return nil
}

// ImportedPoint is one point read from a capture by fleet import --dry-run, with the file it came from.
type ImportedPoint struct {
	File string `json:"file"`
	protocol.Point
}

// WriteImport prints the points of an import that stores nothing: as text the results table of board (see
// WriteResults), as json one object per line (the point's fields and "file"), so a large capture streams.
func WriteImport(w io.Writer, board string, points []ImportedPoint, format string) error {
	f, err := ViewImport.CheckFormat(format)
	if err != nil {
		return err
	}
	if f == FormatText {
		ms := make([]store.Measurement, 0, len(points))
		for _, p := range points {
			ms = append(ms, store.Measurement{Board: board, Point: p.Point})
		}
		return WriteResults(w, ms, FormatText)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range points {
		if err := enc.Encode(p); err != nil {
			return fmt.Errorf("write imported points: %w", err)
		}
	}
	return nil
}
