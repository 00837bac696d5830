package report

import (
	"fmt"
	"io"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

func newRunJSON(r store.Run, current ...int64) runJSON {
	boards := r.Boards
	if boards == nil {
		boards = []string{}
	}
	return runJSON{ID: r.ID, Started: r.Started.UTC(), Finished: r.Finished.UTC(), Label: r.Label,
		Status: string(r.Status), Incomplete: runStatus(r, current...) == "incomplete", Boards: boards, Points: r.Points,
		ToolVersion: r.ToolVersion, Host: r.Host, CommandLine: r.CommandLine, Source: r.Source}
}

// boardRunJSON is one board of a run in WriteRunJSON.
type boardRunJSON struct {
	Board    string          `json:"board"`
	Status   string          `json:"status"`
	Error    string          `json:"error,omitempty"`
	Points   int             `json:"points"`
	Started  time.Time       `json:"started"`
	Finished time.Time       `json:"finished"`
	Facts    *protocol.Facts `json:"facts"` // null when the probe did not get that far
	Skips    []protocol.Skip `json:"skips"`
}

// WriteRunJSON prints one run as JSON: {"run": the run as in WriteRuns' JSON, "boards": each board's status,
// points, facts (protocol.Facts' field names) and skips}. It is what `fleet show` shows, for programs.
func WriteRunJSON(w io.Writer, run store.Run, boards []store.BoardRun) error {
	out := struct {
		Run    runJSON        `json:"run"`
		Boards []boardRunJSON `json:"boards"`
	}{Run: newRunJSON(run), Boards: []boardRunJSON{}}
	for _, br := range boards {
		skips := br.Skips
		if skips == nil {
			skips = []protocol.Skip{}
		}
		out.Boards = append(out.Boards, boardRunJSON{Board: br.Board, Status: string(br.Status), Error: br.Error,
			Points: br.Points, Started: br.Started.UTC(), Finished: br.Finished.UTC(), Facts: br.Facts, Skips: skips})
	}
	if err := writeJSON(w, out); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	return nil
}
