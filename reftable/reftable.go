package reftable

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// ModeAccelerator is the mode of a vendor's "Accelerator" column, which says a hardware engine served the
// figure but not through which interface (cryptodev, AF_ALG, a vendor engine). A comparison matches it with
// every accelerated mode measured; Options.Columns maps it to one mode ("Accelerator=devcrypto") instead.
const ModeAccelerator = protocol.ModeReferenceAccelerator

// MaxFileBytes bounds what Parse reads: a performance guide's tables are a few kilobytes.
const MaxFileBytes = 4 << 20

// Options say what the tables do not.
type Options struct {
	File    string            // the file's name, in errors
	Board   string            // the board of tables whose columns name none
	Mode    string            // the mode of columns that name none ("throughput", "CPU Load")
	Threads int               // -multi N of every figure; 0: the text's own "-multi N", else 1
	Columns map[string]string // header (its name without unit, or all of it; any case) → mode
}

// Entry is one published figure of a board.
type Entry struct {
	Board string
	protocol.Point
}

// Result is what a file holds.
type Result struct {
	Source  string // the text of the file's first "# source:" line; "" when it has none
	Tables  int    // tables read
	Threads int    // the -multi N every entry has
	Entries []Entry
	Columns []string // the keys of Options.Columns that named a column here, sorted
	// Skipped are the tables that could not be read unambiguously, each an *Error at the table's first line
	// saying why (and at which line of it): the rest of the file is read without them. A file none of whose
	// tables can be read is an error instead.
	Skipped []error
	// Warnings are what was read but may not be what the vendor meant, each an *Error at its line: an algorithm
	// name fleet does not know (with the known name nearest to it), stored as written. The names openssl can
	// measure are open-ended (every cipher of a board's build), so an unknown one is not refused; a misspelt
	// one would match no measurement, which the warning says before anything is compared.
	Warnings []error
}

// Error is a table that cannot be read unambiguously, at a line of the file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Parse reads every table of data. An error is an *Error.
func Parse(data []byte, opts Options) (Result, error) {
	p := &parser{opts: opts}
	res, err := p.parse(data)
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

type parser struct {
	opts    Options
	threads int
	tables  []rawTable
	entries []Entry
	cpus    []cpuFigure
	// from and cpuFrom are the table (its first line) of each entry and CPU figure, so that a table found
	// unreadable late (a duplicate, a CPU % without its throughput) is taken out whole.
	from, cpuFrom []int
	skipped       []skip

	usedColumns map[string]bool // the Options.Columns that named a header
	warnings    []error
	warned      map[string]bool // the unknown algorithms warned about, once each
}

// cpuFigure is a published CPU % waiting for the throughput figures it belongs to (size 0: every size).
type cpuFigure struct {
	line                   int
	board, mode, algorithm string
	size                   int
	pct                    float64
	min, max               float64 // the published range ("mean (min m, max M)"), 0 when none
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &Error{File: p.opts.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}

var multiRE = regexp.MustCompile(`-multi\s+(\d+)`)

func (p *parser) parse(data []byte) (Result, error) {
	if len(data) > MaxFileBytes {
		return Result{}, p.errorf(1, "%d bytes: more than a published table (%d at most)", len(data), MaxFileBytes)
	}
	lines, source, err := p.lines(data)
	if err != nil {
		return Result{}, err
	}
	if err := p.segment(lines); err != nil {
		return Result{}, err
	}
	if len(p.tables) == 0 {
		return Result{}, p.errorf(1, "no table found (want tab-separated, Markdown, reStructuredText csv-table or grid tables)")
	}
	if err := p.resolveThreads(lines); err != nil {
		return Result{}, err
	}
	for i := range p.tables {
		p.read(&p.tables[i])
	}
	p.dropDuplicates()
	p.mergeCPU()
	if len(p.entries) == 0 {
		return Result{}, p.nothingRead()
	}
	return Result{Source: source, Tables: len(p.tables) - len(p.skipped), Threads: p.threads, Entries: p.entries,
		Columns: slices.Sorted(maps.Keys(p.usedColumns)), Warnings: p.warnings, Skipped: p.skippedErrors()}, nil
}

// resolveThreads takes -multi N from the options or from the text (the source line and the prose), refusing
// two different N and an option that contradicts the text.
func (p *parser) resolveThreads(lines []line) error {
	var seen []int
	at := 0
	for _, l := range lines {
		if l.table {
			continue
		}
		for _, m := range multiRE.FindAllStringSubmatch(l.text, -1) {
			n, err := strconv.Atoi(m[1])
			if err != nil || n < 1 || n > opensslspeed.MaxThreads {
				return p.errorf(l.n, "-multi %s: not 1 to %d processes", m[1], opensslspeed.MaxThreads)
			}
			if !slices.Contains(seen, n) {
				seen = append(seen, n)
				at = l.n
			}
		}
	}
	switch {
	case p.opts.Threads < 0 || p.opts.Threads > opensslspeed.MaxThreads:
		return p.errorf(1, "threads %d: not 1 to %d", p.opts.Threads, opensslspeed.MaxThreads)
	case len(seen) > 1:
		if p.opts.Threads == 0 {
			return p.errorf(at, "the text names -multi %d and -multi %d: which tables are which is ambiguous; split the file and pass --threads", seen[0], seen[1])
		}
	case len(seen) == 1 && p.opts.Threads != 0 && p.opts.Threads != seen[0]:
		return p.errorf(at, "the text says -multi %d, --threads says %d", seen[0], p.opts.Threads)
	}
	p.threads = p.opts.Threads
	if p.threads == 0 && len(seen) == 1 {
		p.threads = seen[0]
	}
	if p.threads == 0 {
		p.threads = 1
	}
	return nil
}

// mergeCPU puts each published CPU % on the throughput figures of its board, mode and algorithm (and size,
// where the CPU table has one). A CPU table with a figure that matches no throughput, or a second CPU % for
// a figure, is skipped whole, and none of its figures is set.
func (p *parser) mergeCPU() {
	for {
		bad, why := p.checkCPU()
		if bad == 0 {
			break
		}
		p.drop(bad, why)
	}
	for _, c := range p.cpus {
		for j := range p.entries {
			if e := &p.entries[j]; c.matches(e) {
				e.CPUPct = c.pct
				if c.max > 0 {
					e.Flags = append(e.Flags, CPURangeFlag(c.min, c.max))
				}
			}
		}
	}
}

// checkCPU finds the first CPU table with a figure that cannot be placed: its first line and why (a *Error).
func (p *parser) checkCPU() (int, error) {
	set := map[int]int{} // entry index → line of the CPU figure that set it
	for ci, c := range p.cpus {
		n := 0
		for i := range p.entries {
			e := &p.entries[i]
			if !c.matches(e) {
				continue
			}
			if prev, ok := set[i]; ok {
				return p.cpuFrom[ci], p.errorf(c.line, "a second CPU %% for %s %s %s %d B (the first at line %d)", c.board, c.mode, c.algorithm, e.BlockSize, prev)
			}
			set[i] = c.line
			n++
		}
		if n == 0 {
			size := "any size"
			if c.size != 0 {
				size = fmt.Sprintf("%d B", c.size)
			}
			return p.cpuFrom[ci], p.errorf(c.line, "CPU %% of %s %s %s at %s: no throughput figure in the file to go with it", c.board, c.mode, c.algorithm, size)
		}
	}
	return 0, nil
}

func (c cpuFigure) matches(e *Entry) bool {
	return e.Board == c.board && e.Mode == c.mode && e.Algorithm == c.algorithm && (c.size == 0 || e.BlockSize == c.size)
}

type entryKey struct {
	board, mode, alg, op, curve string
	size, bits, threads         int
}

// dropDuplicates skips, while two figures are of the same series, the table of the later one: which of the
// two is published is ambiguous, and the table that repeats one is the one to look at.
func (p *parser) dropDuplicates() {
	for {
		bad, why := p.firstDuplicate()
		if bad == 0 {
			return
		}
		p.drop(bad, why)
	}
}

func (p *parser) firstDuplicate() (int, error) {
	seen := map[entryKey]int{}
	for i, e := range p.entries {
		k := entryKey{e.Board, e.Mode, e.Algorithm, e.Op, e.Curve, e.BlockSize, e.KeyBits, e.Threads}
		if prev, ok := seen[k]; ok {
			what := fmt.Sprintf("%d B", e.BlockSize)
			if e.BlockSize == 0 {
				what = strings.TrimSpace(fmt.Sprintf("%d bits %s %s", e.KeyBits, e.Curve, e.Op))
			}
			return p.from[i], p.errorf(e.Line, "duplicate figure for %s %s %s %s (first at line %d): which one is published is ambiguous", e.Board, e.Mode, e.Algorithm, what, prev)
		}
		seen[k] = e.Line
	}
	return 0, nil
}
