package report

import (
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// resultsTextTables lays the results out for a terminal (TextWidth columns): a table per run and board, in the
// order the points come, titled with them, so that neither repeats down every row; the thread count and timing
// every row of a table shares go to its title, and each note to a numbered footnote under it. Points of an import
// that stores nothing have no run (RunID 0): their title names the board alone.
func resultsTextTables(ms []store.Measurement) []table {
	type part struct {
		run   int64
		board string
	}
	var order []part
	byPart := map[part][]store.Measurement{}
	labels := map[int64]string{}
	for _, m := range ms {
		p := part{m.RunID, m.Board}
		if _, ok := byPart[p]; !ok {
			order = append(order, p)
		}
		byPart[p] = append(byPart[p], m)
		labels[m.RunID] = m.RunLabel
	}
	var out []table
	for _, p := range order {
		out = append(out, resultsTextTable(p.run, labels[p.run], p.board, byPart[p]))
	}
	return out
}

func resultsTextTable(run int64, label, board string, ms []store.Measurement) table {
	title := board
	if run != 0 {
		title = fmt.Sprintf("run %d", run)
		if label != "" {
			title += " (" + label + ")"
		}
		title += ": " + board
	}
	threads, timing := keyOf(ms[0]).Threads, ms[0].Timing
	sameThreads, sameTiming := true, true
	for _, m := range ms {
		sameThreads = sameThreads && keyOf(m).Threads == threads
		sameTiming = sameTiming && m.Timing == timing
	}
	if sameThreads && threads != 1 {
		title += fmt.Sprintf(", %d threads", threads)
	}
	if sameTiming && timing != "" {
		title += ", timed on " + timing
	}
	t := table{Title: title, Header: []string{"mode", "algorithm", "size"}, Align: "lll"}
	if !sameThreads {
		t.Header, t.Align = append(t.Header, "threads"), t.Align+"r"
	}
	t.Header, t.Align = append(t.Header, "repeat", "throughput", "cpu %", "wall s", "user s", "sys s"), t.Align+"rrrrrr"
	if !sameTiming {
		t.Header, t.Align = append(t.Header, "timing"), t.Align+"l"
	}
	t.Header, t.Align = append(t.Header, "note"), t.Align+"l"
	footnote := map[string]int{}
	for _, m := range ms {
		k := keyOf(m)
		v := formatThroughput(m.BytesPerSec, DefaultUnit, false)
		if k.Asym() {
			v = formatThroughput(m.OpsPerSec, "", true)
		}
		row := []string{m.Mode, algoLabel(m.Algorithm, m.Op, 1), k.Size()}
		if !sameThreads {
			row = append(row, fmt.Sprint(k.Threads))
		}
		row = append(row, fmt.Sprint(m.Repeat), v, cpuPctText(m.CPUPct), secondsText(m.WallS))
		if m.UserS == 0 && m.SysS == 0 { // nothing accounted for the CPU: unknown, not free
			row = append(row, "-", "-")
		} else {
			row = append(row, fmt.Sprintf("%.2f", m.UserS), fmt.Sprintf("%.2f", m.SysS))
		}
		if !sameTiming {
			row = append(row, m.Timing)
		}
		mark := ""
		if note := resultNote(m, k); note != "" {
			n, ok := footnote[note]
			if !ok {
				n = len(footnote) + 1
				footnote[note] = n
				t.Notes = append(t.Notes, fmt.Sprintf("[%d] %s", n, note))
			}
			mark = fmt.Sprintf("[%d]", n)
		}
		t.Rows = append(t.Rows, append(row, mark))
	}
	if len(t.Notes) == 0 { // no note column of blanks
		t.Header, t.Align = t.Header[:len(t.Header)-1], t.Align[:len(t.Align)-1]
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][:len(t.Rows[i])-1]
		}
	}
	return t
}

// resultNote is what the note column says of a point: its failure, validity, published range and verification.
func resultNote(m store.Measurement, k SampleKey) string {
	note := m.Error
	if m.Failed {
		note = strings.TrimSpace("failed " + m.Error)
	}
	if m.Validity == protocol.ValiditySuspect || m.Validity == protocol.ValidityInvalid {
		note = strings.TrimSpace(note + " " + m.Validity + ": " + strings.Join(m.ValidityReasons, "; "))
	}
	if m.PublishedMax > 0 {
		note = strings.TrimSpace(note + " published min " + formatThroughput(m.PublishedMin, DefaultUnit, k.Asym()) +
			", max " + formatThroughput(m.PublishedMax, DefaultUnit, k.Asym()))
	}
	if m.Verification == protocol.VerificationWrong {
		note = strings.TrimSpace("WRONG OUTPUT: " + m.VerificationDetail + " " + note)
	}
	return note
}

// cpuPctText is a point's CPU %, or "-" when nothing accounted for it (see cpuText).
func cpuPctText(pct float64) string {
	if pct == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", pct)
}

// secondsText is a time in seconds, or "-" when the point does not have it (an import without timings).
func secondsText(s float64) string {
	if s == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", s)
}
