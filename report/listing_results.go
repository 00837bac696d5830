package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
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
	// Energy of the point from the board's sensor or the lab's meter: absent (never 0) when unknown, with
	// energy_unknown saying why; all absent for boards without a power source (their facts say so).
	EnergyJ         *float64 `json:"energy_j,omitempty"`
	PowerW          *float64 `json:"power_w,omitempty"`
	EnergySamples   int      `json:"energy_samples,omitempty"`
	EnergyUJPerByte *float64 `json:"energy_uj_per_byte,omitempty"`
	EnergyUnknown   string   `json:"energy_unknown,omitempty"`
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
				Precision: prec[keyOf(m)], EnergyJ: m.EnergyJ, PowerW: m.PowerW, EnergySamples: m.EnergySamples,
				EnergyUJPerByte: m.EnergyUJPerByte, EnergyUnknown: m.EnergyUnknown})
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

func validityCSV(p protocol.Point) string {
	v, _ := validityOf(p)
	return v
}
