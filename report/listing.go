package report

import (
	"encoding/csv"
	"errors"
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
	t := table{Title: "Runs", Header: []string{"id", "started", "label", "status", "boards", "points"}, Left: 5}
	for _, r := range runs {
		t.Rows = append(t.Rows, []string{fmt.Sprint(r.ID), r.Started.UTC().Format(timeLayout), r.Label, runStatus(r, current...),
			strings.Join(r.Boards, ", "), fmt.Sprint(r.Points)})
	}
	return t
}

// runJSON is one run in WriteRuns' JSON.
type runJSON struct {
	ID          int64     `json:"id"`
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
}

// WriteRuns lists runs: id, start time (UTC), label, status, boards and points. A run still marked running is
// shown as "incomplete" unless its id is among current (the runs of the calling process, if it has any).
// Formats: text (table), markdown, csv, json.
func WriteRuns(w io.Writer, runs []store.Run, format string, current ...int64) error {
	var err error
	switch f := normalizeFormat(format); f {
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
		cw.Write([]string{"id", "started", "finished", "label", "status", "boards", "points", "tool_version", "host", "command_line", "source"})
		for _, r := range runs {
			fin := ""
			if !r.Finished.IsZero() {
				fin = r.Finished.UTC().Format(time.RFC3339)
			}
			cw.Write([]string{fmt.Sprint(r.ID), r.Started.UTC().Format(time.RFC3339), fin, r.Label, runStatus(r, current...),
				strings.Join(r.Boards, " "), strconv.Itoa(r.Points), r.ToolVersion, r.Host, r.CommandLine, r.Source})
		}
		cw.Flush()
		err = cw.Error()
	default:
		return errFormat("runs", format, FormatText, FormatMarkdown, FormatCSV, FormatJSON)
	}
	if err != nil {
		return fmt.Errorf("write runs: %w", err)
	}
	return nil
}

// resultJSON is one measurement in WriteResults' JSON. The field names are a stable interface; the embedded
// SampleKey's fields (board … threads) are inlined, with the same names as in the comparison's JSON.
type resultJSON struct {
	Run      int64  `json:"run"`
	RunLabel string `json:"run_label,omitempty"`
	SampleKey
	Repeat      int     `json:"repeat"`
	BytesPerSec float64 `json:"bytes_per_sec"`
	OpsPerSec   float64 `json:"ops_per_sec"`
	WallS       float64 `json:"wall_s"`
	UserS       float64 `json:"user_s"`
	SysS        float64 `json:"sys_s"`
	CPUPct      float64 `json:"cpu_pct"`
	Timing      string  `json:"timing"`
	Failed      bool    `json:"failed"`
	Error       string  `json:"error,omitempty"`
	Driver      string  `json:"driver,omitempty"`
	Engine      string  `json:"engine,omitempty"`
}

// WriteResults lists measurements one per line. Formats: text (table, MB/s), markdown, csv, json.
func WriteResults(w io.Writer, ms []store.Measurement, format string) error {
	var err error
	switch f := normalizeFormat(format); f {
	case FormatText, FormatMarkdown:
		t := table{Header: []string{"run", "board", "mode", "algorithm", "size", "threads", "repeat", "throughput",
			"cpu %", "wall s", "user s", "sys s", "timing", "note"}, Align: "rllllrrrrrrrll"}
		for _, m := range ms {
			k := keyOf(m)
			v := formatThroughput(m.BytesPerSec, DefaultUnit, false)
			if k.Asym() {
				v = formatThroughput(m.OpsPerSec, "", true)
			}
			note := m.Error
			if m.Failed {
				note = strings.TrimSpace("failed " + m.Error)
			}
			t.Rows = append(t.Rows, []string{fmt.Sprint(m.RunID), m.Board, m.Mode, algoLabel(m.Algorithm, m.Op, 1), k.Size(),
				fmt.Sprint(k.Threads), fmt.Sprint(m.Repeat), v, fmt.Sprintf("%.0f", m.CPUPct), fmt.Sprintf("%.2f", m.WallS),
				fmt.Sprintf("%.2f", m.UserS), fmt.Sprintf("%.2f", m.SysS), m.Timing, note})
		}
		d := document{Tables: []table{t}}
		if f == FormatText {
			err = d.writeText(w)
		} else {
			err = d.writeMarkdown(w)
		}
	case FormatJSON:
		out := make([]resultJSON, 0, len(ms))
		for _, m := range ms {
			out = append(out, resultJSON{Run: m.RunID, RunLabel: m.RunLabel, SampleKey: keyOf(m),
				Repeat: m.Repeat, BytesPerSec: m.BytesPerSec, OpsPerSec: m.OpsPerSec,
				WallS: m.WallS, UserS: m.UserS, SysS: m.SysS, CPUPct: m.CPUPct, Timing: m.Timing, Failed: m.Failed,
				Error: m.Error, Driver: m.Driver, Engine: m.Engine})
		}
		err = writeJSON(w, out)
	case FormatCSV:
		cw := csv.NewWriter(w)
		cw.Write([]string{"run", "run_label", "board", "mode", "algorithm", "op", "block_size", "key_bits", "curve",
			"threads", "repeat", "bytes_per_sec", "ops_per_sec", "wall_s", "user_s", "sys_s", "cpu_pct", "timing",
			"failed", "error", "driver", "engine"})
		for _, m := range ms {
			cw.Write([]string{fmt.Sprint(m.RunID), m.RunLabel, m.Board, m.Mode, m.Algorithm, m.Op, strconv.Itoa(m.BlockSize),
				strconv.Itoa(m.KeyBits), m.Curve, strconv.Itoa(keyOf(m).Threads), strconv.Itoa(m.Repeat),
				fmtFloat(m.BytesPerSec), fmtFloat(m.OpsPerSec), fmtFloat(m.WallS), fmtFloat(m.UserS), fmtFloat(m.SysS),
				fmtFloat(m.CPUPct), m.Timing, strconv.FormatBool(m.Failed), m.Error, m.Driver, m.Engine})
		}
		cw.Flush()
		err = cw.Error()
	default:
		return errFormat("results", format, FormatText, FormatMarkdown, FormatCSV, FormatJSON)
	}
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// WriteRunSummary prints one run for people: its header, each board's status, facts and skips with reasons, and,
// when raws is not nil, the raw tool output kept for audit.
func WriteRunSummary(w io.Writer, run store.Run, boards []store.BoardRun, raws []store.RawOutput) error {
	ew := &errWriter{w: w}
	ew.printf("run %d", run.ID)
	if run.Label != "" {
		ew.printf(" (%s)", run.Label)
	}
	ew.printf(": %s\n", runStatus(run))
	head := []fact{{"started", run.Started.UTC().Format(time.RFC3339)}}
	if !run.Finished.IsZero() {
		head = append(head, fact{"finished", run.Finished.UTC().Format(time.RFC3339) +
			" (" + run.Finished.Sub(run.Started).Round(time.Second).String() + ")"})
	}
	head = append(head, fact{"tool", run.ToolVersion}, fact{"host", run.Host}, fact{"command", run.CommandLine},
		fact{"source", run.Source}, fact{"points", fmt.Sprint(run.Points)})
	writeFactsText(ew, head, "  ")
	if run.Status == protocol.StatusRunning {
		ew.printf("  %s\n", noteIncomplete)
	}
	for _, br := range boards {
		ew.printf("\nboard %s\n", br.Board)
		writeFactsText(ew, boardFacts(br), "  ")
		if emulated := emulationNotes([]store.BoardRun{br}); len(emulated) > 0 {
			ew.printf("  note: %s\n", emulated[0])
		}
		if len(br.Skips) > 0 {
			ew.printf("  not measured:\n")
			for _, s := range br.Skips {
				alg := s.Algorithm
				if alg == "" {
					alg = "(all)"
				}
				ew.printf("    %s %s: %s\n", s.Mode, alg, s.Reason)
			}
		}
	}
	for _, r := range raws {
		ew.printf("\nraw output %d on %s: %s (exit %d)\n", r.ID, r.Board, strings.Join(r.Command, " "), r.Exit)
		if len(r.Env) > 0 {
			ew.printf("env: %s\n", strings.Join(r.Env, " "))
		}
		ew.printf("--- stdout\n%s", ensureNewline(r.Stdout))
		if r.Stderr != "" {
			ew.printf("--- stderr\n%s", ensureNewline(r.Stderr))
		}
	}
	if ew.err != nil {
		return fmt.Errorf("write run summary: %w", ew.err)
	}
	return nil
}

func writeFactsText(ew *errWriter, facts []fact, indent string) {
	width := 0
	for _, f := range facts {
		width = max(width, len(f.Name))
	}
	for _, f := range facts {
		if f.Value == "" {
			continue
		}
		ew.printf("%s%-*s  %s\n", indent, width+1, f.Name+":", f.Value)
	}
}

func ensureNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// WriteSweepTables prints what `fleet run` shows at the end, per board and algorithm: throughput per block size
// (rows) and mode (columns) as median ±spread, then the CPU % of each mode; asymmetric algorithms in ops/s. The
// columns fit an 80–120 column terminal for up to five modes. With no measurements it prints "no measurements".
func WriteSweepTables(w io.Writer, ms []store.Measurement, unit string) error {
	unit, err := canonicalUnit(unit)
	if err != nil {
		return fmt.Errorf("sweep tables: %w", err)
	}
	c, err := Compare(ms, CompareOptions{Unit: unit})
	if errors.Is(err, ErrNoMeasurements) {
		if _, err := io.WriteString(w, "no measurements\n"); err != nil {
			return fmt.Errorf("sweep tables: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("sweep tables: %w", err)
	}
	var d document
	var boards []string
	for _, col := range c.Columns {
		if len(boards) == 0 || boards[len(boards)-1] != col.Board {
			boards = append(boards, col.Board)
		}
	}
	cpuTimed := false
	for _, board := range boards {
		var cols []int
		for i, col := range c.Columns {
			if col.Board == board {
				cols = append(cols, i)
			}
		}
		// used keeps the board's columns that have a cell in any of the rows, so a table has no empty column.
		used := func(rows []CompareRow) []int {
			var out []int
			for _, i := range cols {
				for _, r := range rows {
					if r.Cells[i] != nil {
						out = append(out, i)
						break
					}
				}
			}
			return out
		}
		header := func(first string, cols []int) []string {
			h := []string{first}
			for _, i := range cols {
				h = append(h, c.Columns[i].Mode)
			}
			return h
		}
		var names []string
		rowsOf := map[string][]CompareRow{}
		for _, r := range c.Rows {
			n := r.Name()
			if _, ok := rowsOf[n]; !ok {
				names = append(names, n)
			}
			rowsOf[n] = append(rowsOf[n], r)
		}
		for _, name := range names {
			cols := used(rowsOf[name])
			tp := table{Title: fmt.Sprintf("%s %s (%s, median ±spread, n)", board, name, unit), Header: header("size", cols), Left: 1}
			cpu := table{Title: fmt.Sprintf("%s %s CPU %%", board, name), Header: header("size", cols), Left: 1}
			measured := false
			for _, r := range rowsOf[name] {
				row, crow := []string{r.Size()}, []string{r.Size()}
				for _, i := range cols {
					cell := r.Cells[i]
					if cell == nil {
						row, crow = append(row, "-"), append(crow, "-")
						continue
					}
					measured = true
					s := formatCell(cell.summary(), unit, false)
					if cell.CPUTimed {
						s += markCPUTimed
						cpuTimed = true
					}
					row = append(row, s)
					crow = append(crow, fmt.Sprintf("%.0f%%", cell.CPUPct))
				}
				tp.Rows, cpu.Rows = append(tp.Rows, row), append(cpu.Rows, crow)
			}
			if measured {
				d.Tables = append(d.Tables, tp, cpu)
			}
		}
		asymCols := used(c.AsymRows)
		asym := table{Title: fmt.Sprintf("%s asymmetric (ops/s, median ±spread, n)", board), Header: header("algorithm", asymCols), Left: 1}
		for _, r := range c.AsymRows {
			row := []string{r.Name() + " " + r.Size()}
			measured := false
			for _, i := range asymCols {
				if cell := r.Cells[i]; cell != nil {
					row = append(row, formatCell(cell.summary(), unit, true))
					measured = true
				} else {
					row = append(row, "-")
				}
			}
			if measured {
				asym.Rows = append(asym.Rows, row)
			}
		}
		if len(asym.Rows) > 0 {
			d.Tables = append(d.Tables, asym)
		}
	}
	if cpuTimed {
		d.Notes = append(d.Notes, noteCPUTimed)
	}
	d.Notes = append(d.Notes, c.Warnings...)
	if err := d.writeText(w); err != nil {
		return fmt.Errorf("sweep tables: %w", err)
	}
	return nil
}
