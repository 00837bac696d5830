package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// historyPoint is one run's sample of one series.
type historyPoint struct {
	Key      SampleKey
	RunID    int64
	Label    string
	Started  time.Time
	Summary  Summary
	CPUTimed bool
	Failed   int
	Invalid  bool // every point of the sample was judged invalid
}

// historyPoints summarizes measurements per series and run, ordered by series, then run start, then run id.
// Each run is its own sample: history never pools runs.
func historyPoints(ms []store.Measurement) []historyPoint {
	type key struct {
		k   SampleKey
		run int64
	}
	byRun := map[int64][]store.Measurement{}
	for _, m := range ms {
		byRun[m.RunID] = append(byRun[m.RunID], m)
	}
	var out []historyPoint
	for run, rms := range byRun {
		samples, _ := Group(rms)
		for _, s := range samples {
			p := historyPoint{Key: s.Key, RunID: run, Label: rms[0].RunLabel, Started: rms[0].RunStarted,
				Summary: s.Summary(), CPUTimed: s.CPUTimed, Failed: s.Failed, Invalid: len(s.Values) > 0 && s.Invalid == len(s.Values)}
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Key != b.Key {
			return keyLess(a.Key, b.Key)
		}
		if !a.Started.Equal(b.Started) {
			return a.Started.Before(b.Started)
		}
		return a.RunID < b.RunID
	})
	return out
}

// HistoryEntry is one run of a series in WriteHistory's JSON.
type HistoryEntry struct {
	Run         int64     `json:"run"`
	Label       string    `json:"label,omitempty"`
	Started     time.Time `json:"started"`
	Median      float64   `json:"median"` // bytes/s, or ops/s for asymmetric series
	Min         float64   `json:"min"`
	Max         float64   `json:"max"`
	Spread      float64   `json:"spread"`
	N           int       `json:"n"`
	Change      float64   `json:"change"` // relative to the previous run of the series; 0 for the first
	CPUTimed    bool      `json:"cpu_timed,omitempty"`
	Failed      int       `json:"failed,omitempty"`
	Invalid     bool      `json:"invalid,omitempty"` // every point of the run was judged invalid: drawn hollow, never judged
	Kernel      string    `json:"kernel,omitempty"`
	OpenSSL     string    `json:"openssl,omitempty"`
	ToolVersion string    `json:"tool_version,omitempty"`
	Changed     []string  `json:"changed,omitempty"` // what differs from the previous run: kernel, OpenSSL, tool, environment (environmentDiff)
}

// HistorySeries is one series over time in WriteHistory's JSON.
type HistorySeries struct {
	SampleKey
	Entries []HistoryEntry `json:"entries"`
}

// History builds the series over time, with the kernel, OpenSSL and tool versions of each run and what changed
// from the previous run. runs and boards may be nil; they only feed the versions.
func History(ms []store.Measurement, runs []store.Run, boards []store.BoardRun) []HistorySeries {
	tool := map[int64]string{}
	for _, r := range runs {
		tool[r.ID] = r.ToolVersion
	}
	type rb struct {
		run   int64
		board string
	}
	facts := map[rb]store.BoardRun{}
	for _, b := range boards {
		facts[rb{b.RunID, b.Board}] = b
	}
	var out []HistorySeries
	for _, p := range historyPoints(ms) {
		if len(out) == 0 || out[len(out)-1].SampleKey != p.Key {
			out = append(out, HistorySeries{SampleKey: p.Key})
		}
		s := &out[len(out)-1]
		e := HistoryEntry{Run: p.RunID, Label: p.Label, Started: p.Started.UTC(), Median: p.Summary.Median,
			Min: p.Summary.Min, Max: p.Summary.Max, Spread: p.Summary.Spread(), N: p.Summary.N, CPUTimed: p.CPUTimed,
			Failed: p.Failed, ToolVersion: tool[p.RunID], Invalid: p.Invalid}
		var cur *protocol.Facts
		if br, ok := facts[rb{p.RunID, p.Key.Board}]; ok && br.Facts != nil {
			cur = br.Facts
			e.Kernel, e.OpenSSL = br.Facts.Kernel, openSSLVersion(br.Facts)
		}
		if n := len(s.Entries); n > 0 {
			prev := s.Entries[n-1]
			if prev.Median > 0 && e.N > 0 {
				e.Change = e.Median/prev.Median - 1
			}
			for _, d := range []struct{ what, a, b string }{{"kernel", prev.Kernel, e.Kernel},
				{"OpenSSL", prev.OpenSSL, e.OpenSSL}, {"fleet", prev.ToolVersion, e.ToolVersion}} {
				if knownChange(d.a, d.b) {
					e.Changed = append(e.Changed, fmt.Sprintf("%s %s → %s", d.what, d.a, d.b))
				}
			}
			e.Changed = append(e.Changed, environmentDiff(facts[rb{prev.Run, p.Key.Board}].Facts, cur)...)
		}
		s.Entries = append(s.Entries, e)
	}
	return out
}

// WriteHistory prints each series over time: one row per run with its label, the median ±spread (n), the change
// from the previous run, and the kernel, OpenSSL and tool versions where they changed. Formats: text, markdown,
// csv, json.
func WriteHistory(w io.Writer, ms []store.Measurement, runs []store.Run, boards []store.BoardRun, format string) error {
	hist := History(ms, runs, boards)
	f, err := ViewHistory.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText, FormatMarkdown:
		d := historyDocument(hist)
		if f == FormatText {
			d.Width = TextWidth
			err = d.writeText(w)
		} else {
			err = d.writeMarkdown(w)
		}
	case FormatJSON:
		if hist == nil {
			hist = []HistorySeries{}
		}
		err = writeJSON(w, hist)
	case FormatCSV:
		err = writeHistoryCSV(w, hist)
	default:
		return fmt.Errorf("history: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	return nil
}

func historyDocument(hist []HistorySeries) document {
	var d document
	cpuTimed, invalid := false, false
	for _, s := range hist {
		t := table{Title: s.Label(), Header: []string{"run", "started", "label", "throughput", "change", "environment"}, Align: "rllrrl"}
		for i, e := range s.Entries {
			env := strings.Join(e.Changed, "; ")
			if i == 0 {
				env = strings.Join(nonEmpty("kernel "+e.Kernel, "OpenSSL "+e.OpenSSL, "fleet "+e.ToolVersion), ", ")
			}
			change := ""
			if i > 0 {
				change = formatChange(e.Change)
			}
			cell := formatCell(Summary{Median: e.Median, Min: e.Min, Max: e.Max, N: e.N}, DefaultUnit, s.Asym())
			if !s.Asym() {
				cell += " " + DefaultUnit
			} else {
				cell += " ops/s"
			}
			if e.CPUTimed {
				cell += markCPUTimed
				cpuTimed = true
			}
			if e.Invalid {
				cell += markValidity
				invalid = true
			}
			t.Rows = append(t.Rows, []string{fmt.Sprint(e.Run), e.Started.Format("2006-01-02 15:04"), e.Label, cell, change, env})
		}
		d.Tables = append(d.Tables, t)
	}
	if len(hist) == 0 {
		d.Notes = append(d.Notes, "no measurements")
	}
	if cpuTimed {
		d.Notes = append(d.Notes, noteCPUTimed)
	}
	if invalid {
		d.Notes = append(d.Notes, markValidity+" every point of the run was judged invalid (busy, throttled or hot board): regress never judges it")
	}
	return d
}

// nonEmpty drops the parts whose value (after the first word) is empty.
func nonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if i := strings.IndexByte(p, ' '); i >= 0 && i < len(p)-1 {
			out = append(out, p)
		}
	}
	return out
}

func writeHistoryCSV(w io.Writer, hist []HistorySeries) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"board", "mode", "algorithm", "op", "threads", "block_size", "key_bits", "curve", "run", "label",
		"started", "median", "min", "max", "spread", "n", "change", "cpu_timed", "kernel", "openssl", "tool_version"})
	for _, s := range hist {
		for _, e := range s.Entries {
			cw.Write([]string{s.Board, s.Mode, s.Algorithm, s.Op, strconv.Itoa(s.Threads), strconv.Itoa(s.BlockSize),
				strconv.Itoa(s.KeyBits), s.Curve, strconv.FormatInt(e.Run, 10), e.Label, e.Started.Format(time.RFC3339),
				fmtFloat(e.Median), fmtFloat(e.Min), fmtFloat(e.Max), fmtFloat(e.Spread), strconv.Itoa(e.N),
				fmtFloat(e.Change), strconv.FormatBool(e.CPUTimed), e.Kernel, e.OpenSSL, e.ToolVersion})
		}
	}
	cw.Flush()
	return cw.Error()
}
