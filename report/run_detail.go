package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/fleetlab/fleet/internal/textfit"
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
		// The value is folded behind blanks as wide as its label, so the fold (which joins words by one space)
		// keeps the label's padding and every line of the value starts in the same column.
		head := fmt.Sprintf("%s%-*s  ", indent, width+1, Printable(f.Name)+":")
		pad := strings.Repeat(" ", textfit.Width(head))
		for i, l := range textfit.Fold(pad+Printable(f.Value), TextWidth, pad) {
			if i == 0 {
				l = head + strings.TrimPrefix(l, pad)
			}
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
