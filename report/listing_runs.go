package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

const timeLayout = "2006-01-02 15:04"

// noteIncomplete explains the "incomplete" status of the runs listing.
const noteIncomplete = "incomplete: still running in another fleet process, or its controller died before finishing"

// runStatus shows a running run as incomplete unless it is one of the current process's own runs: a run still
// marked running by another process is either going on elsewhere or was abandoned when its controller died.
func runStatus(r store.Run, current ...int64) string {
	if r.Status == protocol.StatusRunning && !isCurrent(r.ID, current) {
		return "incomplete"
	}
	return string(r.Status)
}

func isCurrent(id int64, current []int64) bool {
	for _, c := range current {
		if c == id {
			return true
		}
	}
	return false
}

func runsTable(runs []store.Run, current ...int64) table {
	// The validity column is there when some run has judged points; a history of imports only has none.
	judged := false
	for _, r := range runs {
		judged = judged || r.Judged.OK+r.Judged.Suspect+r.Judged.Invalid > 0
	}
	t := table{Title: "Runs", Header: []string{"id", "started", "label", "status", "boards", "points"}, Left: 5}
	if judged {
		t.Header, t.Left, t.Align = append(t.Header, "validity"), 0, "lllllrl"
	}
	for _, r := range runs {
		row := []string{fmt.Sprint(r.ID), r.Started.UTC().Format(timeLayout), r.Label, runStatus(r, current...),
			strings.Join(r.Boards, ", "), fmt.Sprint(r.Points)}
		if judged {
			row = append(row, validityCell(r.Points, r.Judged))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// runJSON is one run in WriteRuns' JSON.
type runJSON struct {
	ID          int64     `json:"id"`
	UUID        string    `json:"uuid"` // names the run in every database it is copied to; id is this database's own
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Label       string    `json:"label"`
	Status      string    `json:"status"` // as stored: running, ok, partial, failed, interrupted, imported
	Incomplete  bool      `json:"incomplete"`
	Boards      []string  `json:"boards"`
	Points      int       `json:"points"`
	ToolVersion string    `json:"tool_version"`
	Host        string    `json:"host"`
	CommandLine string    `json:"command_line"`
	Source      string    `json:"source,omitempty"`
	// Validity counts the run's points by verdict; its headline is the status word with them ("invalid — 24 of 24 points
	// invalid: background CPU").
	Validity validityJSON `json:"validity"`
}

func newRunJSON(r store.Run, current ...int64) runJSON {
	boards := r.Boards
	if boards == nil {
		boards = []string{}
	}
	return runJSON{ID: r.ID, UUID: r.UUID, Started: r.Started.UTC(), Finished: r.Finished.UTC(), Label: r.Label,
		Status: string(r.Status), Incomplete: runStatus(r, current...) == "incomplete", Boards: boards, Points: r.Points,
		ToolVersion: r.ToolVersion, Host: r.Host, CommandLine: r.CommandLine, Source: r.Source,
		Validity: newValidityJSON(runStatus(r, current...), r.Points, r.Judged)}
}

// WriteRuns lists runs: id, start time (UTC), label, status, boards and points. A run still marked running is
// shown as "incomplete" unless its id is among current (the runs of the calling process, if it has any).
// Formats: text (table), markdown, csv, json.
func WriteRuns(w io.Writer, runs []store.Run, format string, current ...int64) error {
	f, err := ViewRuns.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText, FormatMarkdown:
		d := document{Tables: []table{runsTable(runs, current...)}}
		for _, r := range runs {
			if runStatus(r, current...) == "incomplete" {
				d.Notes = []string{noteIncomplete}
				break
			}
		}
		if f == FormatText {
			err = d.writeText(w)
		} else {
			err = d.writeMarkdown(w)
		}
	case FormatJSON:
		out := make([]runJSON, 0, len(runs))
		for _, r := range runs {
			out = append(out, newRunJSON(r, current...))
		}
		err = writeJSON(w, out)
	case FormatCSV:
		cw := csv.NewWriter(w)
		cw.Write([]string{"id", "started", "finished", "label", "status", "boards", "points", "tool_version", "host", "command_line", "source",
			"validity", "invalid", "suspect"})
		for _, r := range runs {
			fin := ""
			if !r.Finished.IsZero() {
				fin = r.Finished.UTC().Format(time.RFC3339)
			}
			cw.Write([]string{fmt.Sprint(r.ID), r.Started.UTC().Format(time.RFC3339), fin, r.Label, runStatus(r, current...),
				strings.Join(r.Boards, " "), strconv.Itoa(r.Points), r.ToolVersion, r.Host, r.CommandLine, r.Source,
				Verdict(r.Judged), strconv.Itoa(r.Judged.Invalid), strconv.Itoa(r.Judged.Suspect)})
		}
		cw.Flush()
		err = cw.Error()
	default:
		return fmt.Errorf("runs: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write runs: %w", err)
	}
	return nil
}
