package opensslspeed

import (
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// A capture cut by `tail`, or OpenSSL 1.1.1's -multi total (which prints its rows with no "type … bytes" line),
// holds symmetric rows without the header that names their columns. Such a row is read when something else says
// what the columns are: Hint.Sizes (the importer's --sizes), the command's -bytes N (one column), or a command
// line in the text together with as many values as OpenSSL's default sizes (five before 1.1.1, six since). A row
// that nothing explains is not read, and a run with no other measurement says which line it was and what is
// missing, rather than "no measurements".

// speedHeaderlessRow says whether a line has the shape of a symmetric table row as OpenSSL prints it: every value
// in 1000s of bytes per second, "123.45k".
func speedHeaderlessRow(line string) bool {
	f := strings.Fields(line)
	n := 0
	for i := len(f) - 1; i > 0 && speedValueRE.MatchString(f[i]); i-- {
		if !strings.HasSuffix(f[i], "k") {
			return false
		}
		n++
	}
	return n > 0
}

// speedRowValues counts the values at the end of a line that has the shape of a table row whatever its name.
func speedRowValues(line string) int {
	f := strings.Fields(line)
	n := 0
	for i := len(f) - 1; i > 0 && speedValueRE.MatchString(f[i]); i-- {
		n++
	}
	return n
}

// headerlessRow reads a header-less row of run b, or notes it when the columns are unknown.
func (p *speedParser) headerlessRow(b *speedRunBuilder, name string, vals []float64, line int) {
	switch {
	case len(p.hint.Sizes) > 0 && len(p.hint.Sizes) == len(vals):
		b.sizes, b.symTable = append([]int(nil), p.hint.Sizes...), true
		for _, n := range b.sizes {
			if msg := speedCheckSize(n); msg != "" {
				b.problem(line, "--sizes: "+msg)
				b.sizes = nil
				return
			}
		}
	case len(p.hint.Sizes) > 0:
		b.problem(line, "row "+strconv.Quote(name)+" has "+strconv.Itoa(len(vals))+" values but --sizes names "+
			strconv.Itoa(len(p.hint.Sizes))+" block sizes: refused")
		return
	case b.cmdInfo != nil && b.cmdInfo.bytes > 0 && len(vals) == 1:
		b.symTable = true
	case (b.cmdInfo != nil || b.multi) && (len(vals) == len(protocol.DefaultSizes) || len(vals) == len(protocol.DefaultSizes)-1):
		b.symTable = true
	default:
		b.evidence = true // the row is openssl's: the run is reported, with what is missing
		if b.headerless == 0 {
			b.headerless = line
		}
		return
	}
	p.symRow(name, vals, line)
}
