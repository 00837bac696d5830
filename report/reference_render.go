package report

import (
	"encoding/csv"
	"fmt"
	"github.com/fleetlab/fleet/internal/textfit"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// WriteReference prints measured boards beside a reference: text (a line per series, "am64x afalg 16384 B:
// 131.2 MB/s, 97 % of ti-am64x-sdk-12.00 (134.93), CPU 41 % (published 39 %)"), markdown, csv or json.
func WriteReference(w io.Writer, c *ReferenceComparison, format string) error {
	f, err := ViewCompareReference.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatJSON:
		return writeJSON(w, c)
	case FormatCSV:
		return writeReferenceCSV(w, c)
	case FormatMarkdown:
		return referenceDocument(c).writeMarkdown(w)
	}
	ew := &errWriter{w: w}
	// Each line folds at TextWidth, its continuation indented, so that a terminal shows one series per paragraph.
	print := func(s string, indent string) {
		for _, l := range textfit.Fold(Printable(s), TextWidth, indent) {
			ew.printf("%s\n", l)
		}
	}
	print(fmt.Sprintf("Beside reference %s (run %d): %s", c.Label, c.RunID, c.Source), "  ")
	for _, r := range c.Rows {
		print(referenceLine(c, r), "    ")
	}
	if n := len(c.Unmatched); n > 0 {
		var names []string
		for i, k := range c.Unmatched {
			if i == 8 {
				names = append(names, fmt.Sprintf("… %d more", n-i))
				break
			}
			names = append(names, k.Label())
		}
		ew.printf("\n")
		print(fmt.Sprintf("%d measured series without a figure in %s: %s", n, c.Label, strings.Join(names, ", ")), "  ")
	}
	for _, n := range c.Notes {
		print("note: "+n, "  ")
	}
	return ew.err
}

// referenceLine is one row as the text shows it.
func referenceLine(c *ReferenceComparison, r ReferenceRow) string {
	k := r.SampleKey
	what := fmt.Sprintf("%s %s %s %s", k.Board, k.Mode, algoLabel(k.Algorithm, k.Op, k.Threads), k.Size())
	of := c.Label
	if len(c.Boards) > 1 {
		of += " " + r.ReferenceBoard
	}
	measured := refValue(r.Median, c.Unit, k.Asym(), true)
	if r.CPUTimed {
		measured += markCPUTimed
	}
	s := fmt.Sprintf("%s: %s, %.0f %% of %s (%s)", what, measured, r.Percent, of,
		refValue(r.Reference, c.Unit, k.Asym(), false))
	if r.ReferenceMax > 0 {
		s += fmt.Sprintf(" [published min %s, max %s]", refValue(r.ReferenceMin, c.Unit, k.Asym(), false), refValue(r.ReferenceMax, c.Unit, k.Asym(), false))
	}
	s += ", CPU " + refCPU(r.CPUPct)
	if r.ReferenceCPUPct > 0 {
		s += fmt.Sprintf(" (published %s %%", strconvG(r.ReferenceCPUPct))
		if r.ReferenceCPUMax > 0 {
			s += fmt.Sprintf(", min %s, max %s", strconvG(r.ReferenceCPUMin), strconvG(r.ReferenceCPUMax))
		}
		s += ")"
	}
	if r.N > 0 {
		s += fmt.Sprintf(", n=%d", r.N)
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

// refCPU is a measured CPU %, or "–" when nothing accounted for it (an import without CPU times): a command that
// ran always used some CPU, so 0 is unknown, not free.
func refCPU(pct float64) string {
	if pct == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", pct)
}

// refValue prints a measured figure as the tables do, or a published one with the digits it was published with.
func refValue(v float64, unit string, asym, measured bool) string {
	switch {
	case measured && asym:
		return formatThroughput(v, "", true)
	case measured:
		return formatThroughput(v, unit, false)
	case asym:
		return strconvG(v)
	}
	return strconvG(inUnit(v, unit))
}

// strconvG prints v with at most ten significant digits and no trailing zeros: 134.93, not 134.9300.
func strconvG(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 10, 64), 64)
	if err != nil {
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func referenceDocument(c *ReferenceComparison) document {
	t := table{Title: fmt.Sprintf("Beside reference %s (run %d)", c.Label, c.RunID),
		Header: []string{"board", "mode", "algorithm", "size", "measured", "% of reference", "reference", "reference board", "reference mode", "cpu %", "published cpu %", "n"},
		Align:  "llllrrrllrrr"}
	for _, r := range c.Rows {
		k := r.SampleKey
		pub := ""
		if r.ReferenceCPUPct > 0 {
			pub = strconvG(r.ReferenceCPUPct)
		}
		if r.ReferenceCPUMax > 0 {
			pub += fmt.Sprintf(" (%s–%s)", strconvG(r.ReferenceCPUMin), strconvG(r.ReferenceCPUMax))
		}
		measured := refValue(r.Median, c.Unit, k.Asym(), true)
		if r.CPUTimed {
			measured += markCPUTimed
		}
		cpu := "–"
		if r.CPUPct > 0 {
			cpu = fmt.Sprintf("%.0f", r.CPUPct)
		}
		t.Rows = append(t.Rows, []string{k.Board, k.Mode, algoLabel(k.Algorithm, k.Op, k.Threads), k.Size(),
			measured, fmt.Sprintf("%.0f", r.Percent), refValue(r.Reference, c.Unit, k.Asym(), false),
			r.ReferenceBoard, r.ReferenceMode, cpu, pub, strconv.Itoa(r.N)})
	}
	return document{Tables: []table{t}, Notes: append([]string{"source: " + c.Source}, c.Notes...)}
}

func writeReferenceCSV(w io.Writer, c *ReferenceComparison) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"board", "mode", "algorithm", "op", "block_size", "key_bits", "curve", "threads", "n", "median", "cpu_pct",
		"reference", "reference_board", "reference_mode", "reference_value", "reference_min", "reference_max", "reference_cpu_pct", "percent"})
	for _, r := range c.Rows {
		k := r.SampleKey
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		cw.Write([]string{k.Board, k.Mode, k.Algorithm, k.Op, strconv.Itoa(k.BlockSize), strconv.Itoa(k.KeyBits), k.Curve,
			strconv.Itoa(k.Threads), strconv.Itoa(r.N), f(r.Median), cpuCSV(r.CPUPct), c.Label, r.ReferenceBoard, r.ReferenceMode,
			f(r.Reference), f(r.ReferenceMin), f(r.ReferenceMax), f(r.ReferenceCPUPct), fmt.Sprintf("%.1f", r.Percent)})
	}
	cw.Flush()
	return cw.Error()
}

// ReferenceHTML is measured boards beside a reference, as the dashboard's compare page shows it.
func ReferenceHTML(c *ReferenceComparison) template.HTML {
	return fragment(func(ew *errWriter) {
		d := referenceDocument(c)
		if n := len(c.Unmatched); n > 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("%d measured series without a figure in %s", n, c.Label))
		}
		writeDocumentHTML(ew, d)
	})
}

// cpuCSV is a CPU % for csv, empty when unknown.
func cpuCSV(pct float64) string {
	if pct == 0 {
		return ""
	}
	return strconv.FormatFloat(pct, 'g', -1, 64)
}
