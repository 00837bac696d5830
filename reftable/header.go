package reftable

import (
	"regexp"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// column is a value column understood from its header.
type column struct {
	header string
	board  string // "" : the table names none
	mode   string // "" : the header names none
	sizes  bool   // the first cell of a table of sizes, not a value column
	unit
}

var parenRE = regexp.MustCompile(`\(([^()]*)\)`)

// splitHeader takes a header apart: "am335x-evm: throughput (KBytes/Sec)" → board "am335x-evm", name
// "throughput", unit "KBytes/Sec". name is lower case with single spaces; unit is as written.
func splitHeader(h string) (board, name, unitText string) {
	s := strings.TrimSpace(h)
	if b, rest, ok := strings.Cut(s, ":"); ok && !slices.Contains([]string{"engine", "provider", "kcapi"}, strings.ToLower(strings.TrimSpace(b))) {
		board, s = strings.TrimSpace(b), rest
	}
	for _, m := range parenRE.FindAllStringSubmatch(s, -1) {
		if _, ok, amb := parseUnit(m[1]); ok || amb {
			unitText = strings.TrimSpace(m[1])
			s = strings.Replace(s, m[0], " ", 1)
		}
	}
	if unitText == "" {
		f := strings.Fields(s)
		if n := len(f); n > 0 {
			if _, ok, amb := parseUnit(f[n-1]); ok || amb {
				unitText = f[n-1]
				s = strings.Join(f[:n-1], " ")
			}
		}
	}
	return board, strings.Join(strings.Fields(strings.ToLower(s)), " "), unitText
}

var algorithmHeaders = []string{"algorithm", "algorithms", "algo", "cipher", "ciphers", "crypto algorithm", "algorithm name"}

func isAlgorithmHeader(h string) bool {
	return slices.Contains(algorithmHeaders, strings.Join(strings.Fields(strings.ToLower(h)), " "))
}

var sizeWordsRE = regexp.MustCompile(`^(?:(?:buffer|frame|block|packet|data|input|message) )?sizes?(?: \((?:in )?bytes\)| in bytes| bytes| \(b\))?$`)

// isSizeHeader reports whether a header's name is a size column's; sizes are read in bytes only.
func isSizeHeader(name string) bool { return sizeWordsRE.MatchString(name) }

// Column names that say which path served the figure, as the guides write them.
var modeNames = map[string]string{
	"accelerator": ModeAccelerator, "hw accelerator": ModeAccelerator, "hardware accelerator": ModeAccelerator,
	"crypto accelerator": ModeAccelerator,
	"arm ce":             protocol.ModeCPU, "armv8 ce": protocol.ModeCPU, "arm crypto extensions": protocol.ModeCPU,
	"armv8 crypto extensions": protocol.ModeCPU,
	"arm":                     protocol.ModeSoft, "arm (no ce)": protocol.ModeSoft, "arm without ce": protocol.ModeSoft,
}

// ambiguousNames could be either of two modes.
var ambiguousNames = map[string]string{
	"software": "with or without the CPU's crypto instructions", "sw": "with or without the CPU's crypto instructions",
	"hardware": "which kernel interface served it", "hw": "which kernel interface served it",
}

// cpuNames are headers of a CPU % column that name no mode.
var cpuNames = []string{"cpu load", "cpu usage", "cpu utilization", "cpu utilisation", "load", "cpu"}

var modeSuffixRE = regexp.MustCompile(`^(engine|provider|kcapi):[a-z0-9][a-z0-9._-]*$`)

// valueColumn understands a value column's header, with t's title for a unit the header lacks.
func (p *parser) valueColumn(header, board, name, unitText string, t *rawTable, line int) (column, error) {
	c := column{header: header, board: strings.ToLower(board)}
	if c.board != "" && !boardRE.MatchString(c.board) {
		return c, p.errorf(line, "column %s: board %s is not a board name (letters, digits, '.', '_', '-')", quoteCell(header), quoteCell(board))
	}
	if unitText != "" {
		u, ok, amb := parseUnit(unitText)
		if amb {
			return c, p.errorf(line, "column %s: %s could be bits or bytes (a lower-case m is milli): write Mb/s for bits or MB/s for bytes", quoteCell(header), unitText)
		}
		if ok {
			c.unit = u
		}
	}
	mapped, isMapped := p.mapped(header, name)
	switch {
	case isMapped:
		c.mode = mapped
	case slices.Contains(cpuNames, name) && (c.measure == measureNone || c.measure == measureCPU):
		c.measure = measureCPU
	case name == "" || name == "throughput" || name == "speed" || name == "performance":
	case modeNames[name] != "":
		c.mode = modeNames[name]
	case slices.Contains(protocol.StandardModes, name) || modeSuffixRE.MatchString(name):
		c.mode = name
	case ambiguousNames[name] != "":
		return c, p.errorf(line, "column %s: %s does not say %s; map it with --column \"%s=MODE\"", quoteCell(header), quoteCell(name), ambiguousNames[name], cutCell(name))
	default:
		return c, p.errorf(line, "column %s: %s is no mode, board or measure known here; map it with --column \"%s=MODE\"", quoteCell(header), quoteCell(name), cutCell(name))
	}
	if c.measure == measureNone {
		u, found, problem := titleUnit(t.title)
		switch {
		case problem != "":
			return c, p.errorf(line, "column %s has no unit and %s", quoteCell(header), problem)
		case !found:
			return c, p.errorf(line, "column %s has no unit, and the table's title names none: which unit its figures are in is ambiguous", quoteCell(header))
		}
		c.unit = u
	}
	return c, nil
}

// mapped looks a header up in Options.Columns, by its name without unit or by all of it.
func (p *parser) mapped(header, name string) (string, bool) {
	for k, v := range p.opts.Columns {
		n := strings.Join(strings.Fields(strings.ToLower(k)), " ")
		if n == name || n == strings.Join(strings.Fields(strings.ToLower(header)), " ") {
			if p.usedColumns == nil {
				p.usedColumns = map[string]bool{}
			}
			p.usedColumns[k] = true
			return v, true
		}
	}
	return "", false
}

var boardRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
