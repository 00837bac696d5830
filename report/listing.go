package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/internal/textfit"

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
	// Validity counts the run's points by verdict; its headline is the status with them ("ok — 24 of 24 points
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
	// PublishedMin and PublishedMax are the range a vendor published beside a reference figure (runs with
	// status reference), in the unit of bytes_per_sec or ops_per_sec; absent when there is none.
	PublishedMin float64 `json:"published_min,omitempty"`
	PublishedMax float64 `json:"published_max,omitempty"`
	Timing       string  `json:"timing"`
	Failed       bool    `json:"failed"`
	Error        string  `json:"error,omitempty"`
	Driver       string  `json:"driver,omitempty"`
	Engine       string  `json:"engine,omitempty"`
	// CPUs is the list a pinned point ran on ("0-3"; absent unpinned, the cluster is in the key) and the busy
	// shares how busy those CPUs and the board's others were over the point (protocol.Point says how).
	CPUs          string  `json:"cpus,omitempty"`
	PinnedBusyPct float64 `json:"pinned_busy_pct,omitempty"`
	OtherBusyPct  float64 `json:"other_busy_pct,omitempty"`
	// Flags are what the agent or the parser said of the point ("single-thread: …", an OpenSSL configuration
	// that routes the algorithm to an engine, a re-derived rate); absent when none.
	Flags []string `json:"flags,omitempty"`
	// Validity is ok, suspect or invalid, or "unknown" for points judged by nobody (imports, older agents).
	Validity        string   `json:"validity"`
	ValidityReasons []string `json:"validity_reasons"`
	// Verification is ok, wrong or unknown: the point's path checked against the controller's crypto before it
	// was measured; "unknown" also for points nobody verified (imports, older agents), with the detail saying so.
	Verification       string `json:"verification"`
	VerificationDetail string `json:"verification_detail"`
	// Precision is what the point's sample (its repeats in this listing) reached under a precision target,
	// the same on each of its repeats; absent without a target.
	Precision *Precision `json:"precision,omitempty"`
}

// validityOf is a point's verdict for listings: "unknown" when it was not judged, reasons never null.
func validityOf(p protocol.Point) (string, []string) {
	v, r := p.Validity, p.ValidityReasons
	if v == "" {
		v = "unknown"
	}
	if r == nil {
		r = []string{}
	}
	return v, r
}

// VerificationOf is a point's verification for listings: "unknown" with a detail saying so when nobody
// verified it.
func VerificationOf(p protocol.Point) (verdict, detail string) {
	if p.Verification == "" {
		return protocol.VerificationUnknown, "not verified (stored before verification, imported, or an older agent)"
	}
	return p.Verification, p.VerificationDetail
}

// WriteResults lists measurements one per line. Formats: text (table, MB/s), markdown, csv, json.
func WriteResults(w io.Writer, ms []store.Measurement, format string) error {
	f, err := ViewResults.CheckFormat(format)
	if err != nil {
		return err
	}
	prec, samples := precisionByKey(ms)
	switch f {
	case FormatText:
		d := document{Tables: resultsTextTables(ms), Width: TextWidth}
		if pt, ok := precisionTable(samples); ok {
			d.Tables = append(d.Tables, pt)
			d.Notes = precisionNotes(samples)
		}
		err = d.writeText(w)
	case FormatMarkdown:
		t := table{Header: []string{"run", "board", "mode", "algorithm", "size", "threads", "repeat", "throughput",
			"cpu %", "wall s", "user s", "sys s", "timing", "note"}, Align: "rllllrrrrrrrll"}
		for _, m := range ms {
			k := keyOf(m)
			v := formatThroughput(m.BytesPerSec, DefaultUnit, false)
			if k.Asym() {
				v = formatThroughput(m.OpsPerSec, "", true)
			}
			t.Rows = append(t.Rows, []string{fmt.Sprint(m.RunID), m.Board, m.Mode, algoLabel(m.Algorithm, m.Op, 1), k.Size(),
				fmt.Sprint(k.Threads), fmt.Sprint(m.Repeat), v, fmt.Sprintf("%.0f", m.CPUPct), fmt.Sprintf("%.2f", m.WallS),
				fmt.Sprintf("%.2f", m.UserS), fmt.Sprintf("%.2f", m.SysS), m.Timing, resultNote(m, k)})
		}
		d := document{Tables: []table{t}}
		if pt, ok := precisionTable(samples); ok {
			d.Tables = append(d.Tables, pt)
			d.Notes = precisionNotes(samples)
		}
		err = d.writeMarkdown(w)
	case FormatJSON:
		out := make([]resultJSON, 0, len(ms))
		for _, m := range ms {
			v, reasons := validityOf(m.Point)
			out = append(out, resultJSON{Run: m.RunID, RunLabel: m.RunLabel, SampleKey: keyOf(m),
				Repeat: m.Repeat, BytesPerSec: m.BytesPerSec, OpsPerSec: m.OpsPerSec,
				WallS: m.WallS, UserS: m.UserS, SysS: m.SysS, CPUPct: m.CPUPct, PublishedMin: m.PublishedMin,
				PublishedMax: m.PublishedMax, Timing: m.Timing, Failed: m.Failed,
				Error: m.Error, Driver: m.Driver, Engine: m.Engine, CPUs: m.CPUs, PinnedBusyPct: m.PinnedBusyPct,
				OtherBusyPct: m.OtherBusyPct, Flags: m.Flags, Validity: v, ValidityReasons: reasons,
				Precision: prec[keyOf(m)]})
			out[len(out)-1].Verification, out[len(out)-1].VerificationDetail = VerificationOf(m.Point)
		}
		err = writeJSON(w, out)
	case FormatCSV:
		cw := csv.NewWriter(w)
		cw.Write(append([]string{"run", "run_label", "board", "mode", "algorithm", "op", "block_size", "key_bits", "curve",
			"threads", "repeat", "bytes_per_sec", "ops_per_sec", "wall_s", "user_s", "sys_s", "cpu_pct", "timing",
			"failed", "error", "driver", "engine", "validity", "validity_reasons"}, append(append([]string{}, precisionCSVHeader...), "verification", "verification_detail")...))
		for _, m := range ms {
			verification, detail := VerificationOf(m.Point)
			cw.Write(append([]string{fmt.Sprint(m.RunID), m.RunLabel, m.Board, m.Mode, m.Algorithm, m.Op, strconv.Itoa(m.BlockSize),
				strconv.Itoa(m.KeyBits), m.Curve, strconv.Itoa(keyOf(m).Threads), strconv.Itoa(m.Repeat),
				fmtFloat(m.BytesPerSec), fmtFloat(m.OpsPerSec), fmtFloat(m.WallS), fmtFloat(m.UserS), fmtFloat(m.SysS),
				fmtFloat(m.CPUPct), m.Timing, strconv.FormatBool(m.Failed), m.Error, m.Driver, m.Engine,
				validityCSV(m.Point), strings.Join(m.ValidityReasons, "; ")}, append(precisionCSV(prec[keyOf(m)]), verification, detail)...))
		}
		cw.Flush()
		err = cw.Error()
	default:
		return fmt.Errorf("results: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// WriteRunSummary prints one run for people: its header, each board's status, facts and skips with reasons (in
// words: PlainReason), and, when raws is not nil (fleet show --raw), each reason as it was stored and the raw
// tool output kept for audit.
func WriteRunSummary(w io.Writer, run store.Run, boards []store.BoardRun, raws []store.RawOutput) error {
	ew := &errWriter{w: w}
	ew.printf("run %d", run.ID)
	if run.Label != "" {
		ew.printf(" (%s)", Printable(run.Label))
	}
	ew.printf(": %s\n", RunHeadline(run))
	head := []fact{{"uuid", run.UUID}, {"started", run.Started.UTC().Format(time.RFC3339)}}
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
		ew.printf("\nboard %s\n", Printable(br.Board))
		writeFactsText(ew, boardFacts(br), "  ")
		if br.Validity != "" {
			ew.folded("  ", "validity: "+strings.TrimSuffix(br.Validity+": "+strings.Join(br.ValidityReasons, "; "), ": "))
		}
		for _, n := range KernelNotes(br.Kernel) {
			ew.folded("  ", Printable(n))
		}
		if br.Facts != nil {
			for _, p := range br.Facts.Prepared {
				ew.folded("  ", "prepared: "+Printable(p))
			}
		}
		if emulated := emulationNotes([]store.BoardRun{br}); len(emulated) > 0 {
			ew.folded("  ", "note: "+Printable(emulated[0]))
		}
		if len(br.Skips) > 0 {
			ew.printf("  not measured:\n")
			for _, s := range br.Skips {
				alg := s.Algorithm
				if alg == "" {
					alg = "(all)"
				}
				ew.folded("    ", Printable(s.Mode)+" "+Printable(alg)+": "+Printable(PlainReason(s.Reason)))
			}
		}
		if raws != nil {
			writeRawReasons(ew, br)
		}
	}
	for _, r := range raws {
		ew.printf("\nraw output %d on %s: %s (exit %d)\n", r.ID, Printable(r.Board), Printable(strings.Join(r.Command, " ")), r.Exit)
		if len(r.Env) > 0 {
			ew.printf("env: %s\n", Printable(strings.Join(r.Env, " ")))
		}
		ew.printf("--- stdout\n%s", ensureNewline(PrintableText(r.Stdout)))
		if r.Stderr != "" {
			ew.printf("--- stderr\n%s", ensureNewline(PrintableText(r.Stderr)))
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
		// a long value (every driver of /proc/crypto, an engine's error) folds under itself; show --raw and
		// --format json keep every word on one line
		head := fmt.Sprintf("%s%-*s  ", indent, width+1, Printable(f.Name)+":")
		for _, l := range textfit.Fold(head+Printable(f.Value), TextWidth, strings.Repeat(" ", textfit.Width(head))) {
			ew.printf("%s\n", l)
		}
	}
}

// folded prints line, indented by indent, folded at TextWidth with its continuation two columns further in.
func (ew *errWriter) folded(indent, line string) {
	for _, l := range textfit.Fold(indent+line, TextWidth, indent+"  ") {
		ew.printf("%s\n", l)
	}
}

func ensureNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// WriteSweepTables prints what `fleet run` shows at the end: the comparison of the run's measurements in the
// given layout (by default per board the vendor-guide table of each algorithm, then the boards against each
// other), throughput in unit. With no measurements it prints "no measurements".
func WriteSweepTables(w io.Writer, ms []store.Measurement, unit string, l Layout) error {
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
	c.Runs = nil // the end of fleet run: the summary above its tables names the run just measured
	if err := WriteCompareLayout(w, c, FormatText, l); err != nil {
		return fmt.Errorf("sweep tables: %w", err)
	}
	return nil
}

func validityCSV(p protocol.Point) string {
	v, _ := validityOf(p)
	return v
}

// writeRawReasons prints the reasons of a board run's modes and skips that PlainReason put in other words, as
// they were stored: OpenSSL's own error records, for a search or a bug report.
func writeRawReasons(ew *errWriter, br store.BoardRun) {
	var lines []string
	seen := map[string]bool{}
	add := func(what, reason string) {
		if reason != "" && PlainReason(reason) != reason && !seen[what+reason] {
			seen[what+reason] = true
			lines = append(lines, fmt.Sprintf("    %s: %s", Printable(what), Printable(reason)))
		}
	}
	if br.Facts != nil {
		for _, m := range br.Facts.Modes {
			add(m.Mode, m.Reason)
		}
		var engines []string
		for e := range br.Facts.Engines {
			engines = append(engines, e)
		}
		sort.Strings(engines)
		for _, e := range engines {
			add("engine "+e, br.Facts.Engines[e])
		}
	}
	for _, s := range br.Skips {
		add(strings.TrimSpace(s.Mode+" "+s.Algorithm), s.Reason)
	}
	if len(lines) > 0 {
		ew.printf("  reasons as stored:\n%s\n", strings.Join(lines, "\n"))
	}
}
