package reftable

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A vendor's page is several tables, and one of them may be unreadable (a ragged row, a column without a unit)
// or empty (a header whose rows were not pasted) while every other is complete. Such a table is skipped, with a
// note naming its line and why, and the rest of the file is read; only a file none of whose tables can be read
// is refused. Nothing is guessed either way: a skipped table gives no figure at all.

// skip is a table left out and why.
type skip struct {
	line int    // the table's first line
	kind string // its layout
	err  error  // why, an *Error at the line at fault
}

// read interprets one table; a table that cannot be read leaves nothing behind and is skipped.
func (p *parser) read(t *rawTable) {
	entries, cpus, warnings := len(p.entries), len(p.cpus), len(p.warnings)
	if err := p.interpret(t); err != nil {
		p.entries, p.cpus, p.warnings = p.entries[:entries], p.cpus[:cpus], p.warnings[:warnings]
		p.skipped = append(p.skipped, skip{line: t.line, kind: t.kind, err: err})
		return
	}
	for range p.entries[entries:] {
		p.from = append(p.from, t.line)
	}
	for range p.cpus[cpus:] {
		p.cpuFrom = append(p.cpuFrom, t.line)
	}
}

// drop takes out every figure of the table at line, found unreadable after it was read.
func (p *parser) drop(line int, why error) {
	kind := ""
	for _, t := range p.tables {
		if t.line == line {
			kind = t.kind
		}
	}
	p.skipped = append(p.skipped, skip{line: line, kind: kind, err: why})
	var entries []Entry
	var from []int
	for i, e := range p.entries {
		if p.from[i] != line {
			entries, from = append(entries, e), append(from, p.from[i])
		}
	}
	p.entries, p.from = entries, from
	var cpus []cpuFigure
	var cpuFrom []int
	for i, c := range p.cpus {
		if p.cpuFrom[i] != line {
			cpus, cpuFrom = append(cpus, c), append(cpuFrom, p.cpuFrom[i])
		}
	}
	p.cpus, p.cpuFrom = cpus, cpuFrom
}

// skippedErrors are the notes of the skipped tables, in the file's order.
func (p *parser) skippedErrors() []error {
	sk := slices.Clone(p.skipped)
	slices.SortStableFunc(sk, func(a, b skip) int { return a.line - b.line })
	var out []error
	for _, s := range sk {
		out = append(out, p.errorf(s.line, "%s table skipped, the rest of the file is read: %s", s.kind, reasonAt(s)))
	}
	return out
}

// reasonAt is why a table was skipped, with the line at fault when it is not the table's first.
func reasonAt(s skip) string {
	var e *Error
	if errors.As(s.err, &e) {
		if e.Line != s.line {
			return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
		}
		return e.Msg
	}
	return s.err.Error()
}

// nothingRead is the error of a file with no figure: the first skipped table's own error (the others' after it),
// or, when every table was read and none published a figure, that.
func (p *parser) nothingRead() error {
	if len(p.skipped) == 0 {
		return p.errorf(p.tables[0].line, "no throughput or operations per second in any table")
	}
	sk := slices.Clone(p.skipped)
	slices.SortStableFunc(sk, func(a, b skip) int { return a.line - b.line })
	var first *Error
	if !errors.As(sk[0].err, &first) {
		return sk[0].err
	}
	if len(sk) == 1 {
		return first
	}
	var others []string
	for _, s := range sk[1:] {
		others = append(others, fmt.Sprintf("the table at line %d: %s", s.line, reasonAt(s)))
	}
	return &Error{File: first.File, Line: first.Line, Msg: first.Msg + "; and no other table could be read either (" +
		strings.Join(others, "; ") + ")"}
}
