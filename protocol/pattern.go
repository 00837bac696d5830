package protocol

import (
	"unicode"
	"unicode/utf8"
)

// Pattern is a regular expression of the subset OpenSSL's text needs (pattern_parse.go), matched as package
// regexp matches: leftmost-first, the submatches a backtracking matcher would choose, runes of UTF-8 with each
// invalid byte one U+FFFD. It exists because package regexp (its compiler, three matchers and the Unicode
// tables) was 196,608 B of the ARMv5 agent's file, which the 3 MiB budget cannot afford, and the agent and this
// package were its only users there. A match costs time and memory proportional to the length of the text
// times the pattern's (a backtracker that never tries a position twice), so hostile lines stay linear.
// pattern_test.go checks every pattern of the module against package regexp.
type Pattern struct {
	expr  string
	prog  []patInst
	slots int // 2 per capture group, the whole match included
}

// MustPattern compiles expr, panicking when it is outside the subset: patterns are constants of the code.
func MustPattern(expr string) *Pattern {
	p, err := compilePattern(expr)
	if err != nil {
		panic(err)
	}
	return p
}

// CompilePattern compiles expr, or says why it is outside the subset: for patterns a user wrote (a board's
// kernel-log patterns), which the agent and the controller must read alike.
func CompilePattern(expr string) (*Pattern, error) { return compilePattern(expr) }

// isWordByte is package regexp's ASCII word character, what \b looks at on each side.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func compilePattern(expr string) (*Pattern, error) {
	ps := &patParser{s: expr}
	root, err := ps.alternation()
	if err != nil {
		return nil, err
	}
	if ps.i < len(expr) {
		return nil, ps.errorf("unexpected )")
	}
	pat := &Pattern{expr: expr, slots: 2 * (ps.groups + 1)}
	pat.emit(&patNode{kind: kindGroup, subs: []*patNode{root}})
	pat.prog = append(pat.prog, patInst{op: patMatch})
	return pat, nil
}

// String is the source of the pattern.
func (p *Pattern) String() string { return p.expr }

// emit appends n's instructions; each falls through to the next instruction after it.
func (p *Pattern) emit(n *patNode) {
	switch n.kind {
	case kindLeaf:
		p.prog = append(p.prog, patInst{op: n.op, ranges: n.ranges, negate: n.negate, fold: n.fold})
		p.prog[len(p.prog)-1].out = len(p.prog)
	case kindConcat:
		for _, s := range n.subs {
			p.emit(s)
		}
	case kindGroup:
		if n.capture >= 0 {
			p.save(2 * n.capture)
		}
		p.emit(n.subs[0])
		if n.capture >= 0 {
			p.save(2*n.capture + 1)
		}
	case kindAlt:
		var jumps []int
		for i, s := range n.subs {
			split := -1
			if i < len(n.subs)-1 {
				split = len(p.prog)
				p.prog = append(p.prog, patInst{op: patSplit, out: split + 1})
			}
			p.emit(s)
			if i < len(n.subs)-1 {
				jumps = append(jumps, len(p.prog))
				p.prog = append(p.prog, patInst{op: patJump})
				p.prog[split].alt = len(p.prog)
			}
		}
		for _, j := range jumps {
			p.prog[j].out = len(p.prog)
		}
	case kindRepeat:
		p.emitRepeat(n)
	}
}

func (p *Pattern) save(slot int) {
	p.prog = append(p.prog, patInst{op: patSave, n: slot, out: len(p.prog) + 1})
}

// emitRepeat writes min copies of the body, then max-min optional ones (or a loop when there is no maximum).
func (p *Pattern) emitRepeat(n *patNode) {
	body := n.subs[0]
	for range n.min {
		p.emit(body)
	}
	// split: the body first when greedy, the way past it first when lazy
	split := func() int {
		p.prog = append(p.prog, patInst{op: patSplit})
		return len(p.prog) - 1
	}
	link := func(s, bodyAt, past int) {
		p.prog[s].out, p.prog[s].alt = bodyAt, past
		if n.lazy {
			p.prog[s].out, p.prog[s].alt = past, bodyAt
		}
	}
	if n.max < 0 {
		s := split()
		p.emit(body)
		p.prog = append(p.prog, patInst{op: patJump, out: s})
		link(s, s+1, len(p.prog))
		return
	}
	var splits []int
	for range n.max - n.min {
		s := split()
		splits = append(splits, s)
		p.emit(body)
		p.prog[s].out = s + 1
	}
	for _, s := range splits {
		link(s, s+1, len(p.prog))
	}
}

// matches reports whether r is one the instruction accepts.
func (in *patInst) matches(r rune) bool {
	in1 := in.inRanges(r)
	if in.fold && !in1 {
		for f := unicode.SimpleFold(r); f != r && !in1; f = unicode.SimpleFold(f) {
			in1 = in.inRanges(f)
		}
	}
	return in1 != in.negate
}

func (in *patInst) inRanges(r rune) bool {
	for i := 0; i+1 < len(in.ranges); i += 2 {
		if in.ranges[i] <= r && r <= in.ranges[i+1] {
			return true
		}
	}
	return false
}

// patJob is a backtracking choice: resume at pc, pos; or (pc < 0) restore capture slot n to pos.
type patJob struct{ pc, pos, n int }

// match finds the leftmost-first match in s starting at or after from; nil when there is none.
func (p *Pattern) match(s string, from int) []int {
	width := len(s) + 1
	visited := make([]uint32, (len(p.prog)*width+31)/32)
	caps := make([]int, p.slots)
	var stack []patJob
	for start := from; start <= len(s); {
		for i := range caps {
			caps[i] = -1
		}
		stack = append(stack[:0], patJob{pc: 0, pos: start})
		if p.run(s, stack, caps, visited, width) {
			return caps
		}
		if p.prog[1].op == patBeginText && start > 0 || start == len(s) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[start:])
		start += size
	}
	return nil
}

func (p *Pattern) run(s string, stack []patJob, caps []int, visited []uint32, width int) bool {
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if j.pc < 0 {
			caps[j.n] = j.pos
			continue
		}
		pc, pos := j.pc, j.pos
	step:
		if k := pc*width + pos; visited[k/32]&(1<<(k%32)) != 0 {
			continue
		} else {
			visited[k/32] |= 1 << (k % 32)
		}
		in := &p.prog[pc]
		switch in.op {
		case patRune:
			if pos >= len(s) {
				continue
			}
			r, size := utf8.DecodeRuneInString(s[pos:])
			if !in.matches(r) {
				continue
			}
			pc, pos = in.out, pos+size
		case patSplit:
			stack = append(stack, patJob{pc: in.alt, pos: pos})
			pc = in.out
		case patJump:
			pc = in.out
		case patSave:
			stack = append(stack, patJob{pc: -1, pos: caps[in.n], n: in.n})
			caps[in.n] = pos
			pc = in.out
		case patBeginText, patEndText, patBeginLine, patEndLine, patWordBoundary, patNoWordBoundary:
			if !atAssertion(in.op, s, pos) {
				continue
			}
			pc = in.out
		case patMatch:
			return true
		}
		goto step
	}
	return false
}

func atAssertion(op patOp, s string, pos int) bool {
	switch op {
	case patBeginText:
		return pos == 0
	case patEndText:
		return pos == len(s)
	case patBeginLine:
		return pos == 0 || s[pos-1] == '\n'
	case patWordBoundary, patNoWordBoundary:
		at := (pos > 0 && isWordByte(s[pos-1])) != (pos < len(s) && isWordByte(s[pos]))
		return at == (op == patWordBoundary)
	}
	return pos == len(s) || s[pos] == '\n'
}

// submatches turns capture positions into strings ("" for a group that did not take part).
func (p *Pattern) submatches(s string, caps []int) []string {
	out := make([]string, p.slots/2)
	for i := range out {
		if caps[2*i] >= 0 && caps[2*i+1] >= 0 {
			out[i] = s[caps[2*i]:caps[2*i+1]]
		}
	}
	return out
}

// MatchString reports whether s contains a match.
func (p *Pattern) MatchString(s string) bool { return p.match(s, 0) != nil }

// FindStringSubmatch returns the leftmost match and its groups, as regexp.Regexp.FindStringSubmatch.
func (p *Pattern) FindStringSubmatch(s string) []string {
	caps := p.match(s, 0)
	if caps == nil {
		return nil
	}
	return p.submatches(s, caps)
}

// FindAllStringSubmatch returns up to n successive non-overlapping matches (all when n < 0), as
// regexp.Regexp.FindAllStringSubmatch: an empty match right after the previous match does not count.
func (p *Pattern) FindAllStringSubmatch(s string, n int) [][]string {
	var out [][]string
	for pos, prevEnd := 0, -1; (n < 0 || len(out) < n) && pos <= len(s); {
		caps := p.match(s, pos)
		if caps == nil {
			break
		}
		accept := true
		if caps[1] == pos {
			accept = caps[0] != prevEnd
			_, size := utf8.DecodeRuneInString(s[pos:])
			pos += max(size, 1)
		} else {
			pos = caps[1]
		}
		prevEnd = caps[1]
		if accept {
			out = append(out, p.submatches(s, caps))
		}
	}
	return out
}

// ReplaceAllLiteralString replaces every match in s by repl, taken literally, as the method of regexp.Regexp
// (an empty match right after another match is not replaced).
func (p *Pattern) ReplaceAllLiteralString(s, repl string) string {
	var b []byte
	last := 0
	for pos := 0; pos <= len(s); {
		caps := p.match(s, pos)
		if caps == nil {
			break
		}
		b = append(b, s[last:caps[0]]...)
		if caps[1] > last || caps[0] == 0 {
			b = append(b, repl...)
		}
		last = caps[1]
		_, size := utf8.DecodeRuneInString(s[pos:])
		switch {
		case pos+size > caps[1]:
			pos += size
		case pos+1 > caps[1]:
			pos++
		default:
			pos = caps[1]
		}
	}
	return string(append(b, s[last:]...))
}
