package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// WriteSSH prints the SSH table in one of the compare view's formats; html is a page of it alone, as WriteHTML
// draws it.
func WriteSSH(w io.Writer, c *SSHComparison, format string) error {
	f, err := ViewCompare.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText:
		err = c.document(false).writeText(w)
	case FormatMarkdown:
		err = c.document(true).writeMarkdown(w)
	case FormatCSV:
		err = writeSSHCSV(w, c)
	case FormatJSON:
		err = writeJSON(w, c)
	case FormatHTML:
		err = WriteHTML(w, HTMLReport{Title: "fleet compare", SSH: c})
	default:
		return fmt.Errorf("compare: the SSH table (mode ssh) is not rendered as %s yet: use text, markdown, csv, json or html", f)
	}
	if err != nil {
		return fmt.Errorf("write ssh table: %w", err)
	}
	return nil
}

// sshShape is which columns an SSH table has: every row follows them, and they depend on the form and on the
// rows together.
type sshShape struct {
	full     bool // Markdown: the controller's CPU and the negotiated cipher and MAC as columns too
	showSize bool // a column of the transfer size: several sizes, or full; else the title says the one size
	anyRaw   bool // a row has the board's raw cipher speed to set SSH against
}

// document lays the table out; full adds the transfer size, the controller's CPU and the negotiated cipher and
// MAC as columns (Markdown), where the text form keeps them to the title and notes to fit a terminal.
func (c *SSHComparison) document(full bool) document {
	s := sshShape{full: full, showSize: full || len(c.sizes()) > 1,
		anyRaw: slices.ContainsFunc(c.Rows, func(r SSHRow) bool { return r.Raw != nil })}
	t := c.tableHeader(s)
	prevBoard := ""
	for _, r := range c.Rows {
		t.Rows = append(t.Rows, c.tableRow(r, s, blankRepeat(&prevBoard, r.Board)))
	}
	t.Notes = c.tableNotes(s)
	return document{Tables: []table{t}, Width: textWidth(full)}
}

// tableHeader is the table without rows: the title, and the headings and groups of the board and cipher (and
// size), upload, download, the raw cipher and the negotiated algorithms, as s has them.
func (c *SSHComparison) tableHeader(s sshShape) table {
	title := fmt.Sprintf("SSH throughput per cipher (%s median; board CPU %% of one core)", c.Unit)
	if !s.showSize {
		title = fmt.Sprintf("SSH throughput, %s each way (%s median; board CPU %% of one core)",
			sizeText(c.sizes()[0]), c.Unit)
	}
	t := table{Title: title, Left: 2}
	t.Header = []string{"board", "cipher"}
	t.Groups = []group{{Span: 2}}
	if s.showSize {
		t.Header = append(t.Header, "size")
		t.Groups[0].Span++
		t.Left++
	}
	dir := []string{c.Unit, "board"}
	if s.full {
		dir = append(dir, "host")
	}
	t.Header = append(t.Header, dir...)
	t.Header = append(t.Header, dir...)
	t.Groups = append(t.Groups, group{"upload", len(dir)}, group{"download", len(dir)})
	if s.anyRaw {
		t.Header = append(t.Header, "raw "+c.Unit, "SSH/raw")
		t.Groups = append(t.Groups, group{"raw cipher", 2})
	}
	if s.full {
		t.Header = append(t.Header, "negotiated")
		t.Groups = append(t.Groups, group{Span: 1})
	}
	return t
}

// tableRow is one row of the table, the board named as board ("" where it repeats the row above).
func (c *SSHComparison) tableRow(r SSHRow, s sshShape, board string) []string {
	row := []string{board, r.Cipher}
	if s.showSize {
		row = append(row, sizeText(r.Size))
	}
	for _, cell := range []*SSHCell{r.Upload, r.Download} {
		row = append(row, sshValue(cell), sshCPU(cell))
		if s.full {
			row = append(row, sshControllerCPU(cell))
		}
	}
	if s.anyRaw {
		if r.Raw == nil {
			row = append(row, "", "")
		} else {
			row = append(row, formatValue(r.Raw.Value)+" "+r.Raw.Mode, sshRatio(r.Upload, r.Raw)+"/"+sshRatio(r.Download, r.Raw)+"%")
		}
	}
	if s.full {
		row = append(row, r.Negotiated)
	}
	return row
}

// tableNotes are the table's notes: the raw cipher explained and each row's share of it, the host-bound
// warning, the controller's CPU range and the negotiated algorithms (in the text form, where they are not
// columns), the jump hosts, the failed points and the comparison's warnings.
func (c *SSHComparison) tableNotes(s sshShape) []string {
	var notes []string
	if s.anyRaw {
		notes = append(notes, "raw cipher: the board's openssl speed of the cipher SSH uses (cpu, or devcrypto without a cpu point), "+
			"median of the newest run that measured it, at its largest block size; SSH/raw: upload/download as a share of it; "+
			"board: the whole board's busy CPU over the transfer, from /proc/stat.")
		for _, r := range c.Rows {
			if r.Raw != nil {
				notes = append(notes, sshReaches(r, c.Unit))
			}
		}
	}
	if c.hostBound() {
		notes = append(notes, fmt.Sprintf("! host-bound: the controller used at least %d %% of one core over the transfer: "+
			"the figure may be the controller's limit, not the board's (bench/README.md gives the controller's ceiling per cipher).",
			protocol.HostBoundPct))
	}
	if lo, hi, ok := c.controllerRange(); ok && !s.full {
		span := fmt.Sprintf("%.0f–%.0f", lo, hi)
		if math.Round(lo) == math.Round(hi) {
			span = fmt.Sprintf("%.0f", lo)
		}
		notes = append(notes, fmt.Sprintf("controller CPU over the transfers: %s %% of one core (host-bound from %d %%).",
			span, protocol.HostBoundPct))
	}
	notes = append(notes, c.chainNotes()...)
	if neg := c.negotiatedList(); len(neg) > 0 && !s.full {
		notes = append(notes, "negotiated, as read back from each connection: "+strings.Join(neg, "; ")+".")
	}
	notes = append(notes, c.failureNotes()...)
	return append(notes, c.Warnings...)
}

// hostBound reports whether the controller was the limit of any transfer (SSHCell.HostBound), which a note
// then warns of.
func (c *SSHComparison) hostBound() bool {
	for _, r := range c.Rows {
		for _, cell := range []*SSHCell{r.Upload, r.Download} {
			if cell != nil && cell.HostBound > 0 {
				return true
			}
		}
	}
	return false
}

// failureNotes say, per row and direction, how many points failed and were left out, and their errors.
func (c *SSHComparison) failureNotes() []string {
	var notes []string
	for _, r := range c.Rows {
		for _, d := range []struct {
			op   string
			cell *SSHCell
		}{{protocol.OpUpload, r.Upload}, {protocol.OpDownload, r.Download}} {
			if d.cell != nil && d.cell.Failed > 0 {
				notes = append(notes, fmt.Sprintf("%s %s %s: %d failed point(s) excluded: %s", r.Board, r.Cipher,
					d.op, d.cell.Failed, strings.Join(d.cell.Errors, "; ")))
			}
		}
	}
	return notes
}

func textWidth(full bool) int {
	if full {
		return 0
	}
	return 100
}

func (c *SSHComparison) sizes() []int {
	var s []int
	for _, r := range c.Rows {
		if !slices.Contains(s, r.Size) {
			s = append(s, r.Size)
		}
	}
	slices.Sort(s)
	return s
}

// sizeText is "64 MiB" for whole MiB, else bytes.
func sizeText(n int) string {
	if n > 0 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n) + " B"
}

func sshValue(c *SSHCell) string {
	if c == nil || c.N == 0 {
		if c != nil && c.Failed > 0 {
			return "failed"
		}
		return ""
	}
	s := formatValue(c.Value)
	if c.N > 1 {
		s += " ±" + formatPct(c.Spread)
	}
	if c.HostBound > 0 {
		s += "!"
	}
	return s
}

func sshCPU(c *SSHCell) string {
	if c == nil || c.N == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f%%", c.BoardCPU)
}

func sshControllerCPU(c *SSHCell) string {
	if c == nil || c.N == 0 || c.ControllerCPU < 0 {
		return ""
	}
	return fmt.Sprintf("%.0f%%", c.ControllerCPU)
}

func sshRatio(c *SSHCell, raw *SSHRaw) string {
	if c == nil || c.N == 0 || raw.Median <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", 100*c.Median/raw.Median)
}

// sshReaches is the OCF report's sentence: "board3 aes128-ctr: SSH reaches 38 % of aes-128-ctr's raw speed …".
func sshReaches(r SSHRow, unit string) string {
	var parts []string
	for _, d := range []struct {
		op   string
		cell *SSHCell
	}{{"uploading", r.Upload}, {"downloading", r.Download}} {
		if d.cell != nil && d.cell.N > 0 {
			parts = append(parts, fmt.Sprintf("%.0f %% %s", math.Round(100*d.cell.Median/r.Raw.Median), d.op))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s: SSH reaches %s of %s's raw speed (%s %s, %s at %d B, run %d).", r.Board, r.Cipher,
		strings.Join(parts, " and "), r.Raw.Algorithm, formatValue(r.Raw.Value), unit, r.Raw.Mode, r.Raw.BlockSize, r.Raw.RunID)
}

func (c *SSHComparison) controllerRange() (lo, hi float64, ok bool) {
	lo = math.Inf(1)
	for _, r := range c.Rows {
		for _, cell := range []*SSHCell{r.Upload, r.Download} {
			if cell != nil && cell.N > 0 && cell.ControllerCPU >= 0 {
				lo, hi, ok = math.Min(lo, cell.ControllerCPU), math.Max(hi, cell.ControllerCPU), true
			}
		}
	}
	return lo, hi, ok
}

// chainNotes say which boards were measured through jump hosts: their figures are those of the whole chain.
func (c *SSHComparison) chainNotes() []string {
	var notes []string
	seen := map[string]bool{}
	for _, r := range c.Rows {
		if r.ProxyJump != "" && !seen[r.Board] {
			seen[r.Board] = true
			notes = append(notes, fmt.Sprintf("%s: reached through the jump host(s) %s (ProxyJump): its figures are those of the whole chain, not of the board's link alone.", r.Board, r.ProxyJump))
		}
	}
	return notes
}

func (c *SSHComparison) negotiatedList() []string {
	var out []string
	for _, r := range c.Rows {
		if r.Negotiated != "" && !slices.Contains(out, r.Negotiated) {
			out = append(out, r.Negotiated)
		}
	}
	return out
}

func writeSSHCSV(w io.Writer, c *SSHComparison) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"board", "cipher", "size", "op", "unit", "median", "min", "max", "n", "board_cpu_pct",
		"controller_cpu_pct", "host_bound", "failed", "negotiated", "proxy_jump", "raw_mode", "raw_algorithm", "raw_median", "ssh_over_raw"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, r := range c.Rows {
		for _, d := range []struct {
			op   string
			cell *SSHCell
		}{{protocol.OpUpload, r.Upload}, {protocol.OpDownload, r.Download}} {
			if d.cell == nil {
				continue
			}
			x := d.cell
			row := []string{r.Board, r.Cipher, strconv.Itoa(r.Size), d.op, c.Unit, f(x.Value), f(inUnit(x.Min, c.Unit)),
				f(inUnit(x.Max, c.Unit)), strconv.Itoa(x.N), f(x.BoardCPU), f(x.ControllerCPU), strconv.Itoa(x.HostBound),
				strconv.Itoa(x.Failed), r.Negotiated, r.ProxyJump, "", "", "", ""}
			if r.Raw != nil {
				row[15], row[16], row[17] = r.Raw.Mode, r.Raw.Algorithm, f(r.Raw.Value)
				if r.Raw.Median > 0 && x.N > 0 {
					row[18] = f(x.Median / r.Raw.Median)
				}
			}
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}
