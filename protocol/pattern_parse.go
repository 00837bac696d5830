package protocol

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The syntax a Pattern accepts: literals; `.`; the classes [...] and [^...] with ranges and \d \s \w inside;
// \d \D \s \S \w \W (ASCII, as in package regexp); escaped punctuation, \t \n \r \f; ^ and $ (of the text, or of
// a line after (?m)); \b and \B (an ASCII word boundary or not, as in package regexp: the kernel-log patterns need
// them); groups (...) and (?:...); alternation |; the quantifiers * + ? {n} {n,} {n,m}, each lazy
// with a trailing ?; and the flags (?i) and (?m) for the rest of their group. Anything else is refused.

type patOp uint8

const (
	patRune  patOp = iota // one rune in ranges (negated: not in them); with fold, any rune of its case orbit
	patSplit              // try out, then alt
	patJump               // go to out
	patSave               // record the position in capture slot n
	patBeginText
	patEndText
	patBeginLine
	patEndLine
	patMatch
	patWordBoundary   // \b: a word character ([0-9A-Za-z_]) on one side of the position and none on the other
	patNoWordBoundary // \B
)

// patInst is one instruction of a compiled pattern.
type patInst struct {
	op       patOp
	out, alt int
	n        int    // capture slot of patSave
	ranges   []rune // patRune: lo, hi pairs
	negate   bool
	fold     bool
}

// patNode is the parsed form, compiled to instructions by emit.
type patNode struct {
	op       patOp // patRune, patBeginText…patEndLine, or one of the kinds below
	kind     int
	ranges   []rune
	negate   bool
	fold     bool
	subs     []*patNode
	min, max int // repeat: max -1 for no limit
	lazy     bool
	capture  int // group: its number (0: the whole match, -1: not capturing)
}

const (
	kindLeaf = iota
	kindConcat
	kindAlt
	kindRepeat
	kindGroup
)

type patParser struct {
	s      string
	i      int
	fold   bool
	multi  bool
	groups int
}

func (p *patParser) errorf(format string, args ...any) error {
	return fmt.Errorf("pattern %q at %d: %s", p.s, p.i, fmt.Sprintf(format, args...))
}

// alternation parses a|b|… up to a ')' or the end.
func (p *patParser) alternation() (*patNode, error) {
	alt := &patNode{kind: kindAlt}
	for {
		c, err := p.concat()
		if err != nil {
			return nil, err
		}
		alt.subs = append(alt.subs, c)
		if p.i >= len(p.s) || p.s[p.i] != '|' {
			break
		}
		p.i++
	}
	if len(alt.subs) == 1 {
		return alt.subs[0], nil
	}
	return alt, nil
}

func (p *patParser) concat() (*patNode, error) {
	cat := &patNode{kind: kindConcat}
	for p.i < len(p.s) && p.s[p.i] != '|' && p.s[p.i] != ')' {
		if strings.HasPrefix(p.s[p.i:], "(?i)") || strings.HasPrefix(p.s[p.i:], "(?m)") {
			p.fold, p.multi = p.fold || p.s[p.i+2] == 'i', p.multi || p.s[p.i+2] == 'm'
			p.i += 4
			continue
		}
		atom, err := p.atom()
		if err != nil {
			return nil, err
		}
		if atom, err = p.repeat(atom); err != nil {
			return nil, err
		}
		cat.subs = append(cat.subs, atom)
	}
	return cat, nil
}

// repeat applies the quantifier after atom, if any; as in package regexp, a second one is an error.
func (p *patParser) repeat(atom *patNode) (*patNode, error) {
	for n := 0; p.i < len(p.s); n++ {
		if n > 0 && strings.IndexByte("*+?{", p.s[p.i]) >= 0 {
			return nil, p.errorf("invalid nested repetition operator")
		}
		min, max := 0, -1
		switch c := p.s[p.i]; c {
		case '*':
			p.i++
		case '+':
			min = 1
			p.i++
		case '?':
			max = 1
			p.i++
		case '{':
			end := strings.IndexByte(p.s[p.i:], '}')
			if end < 0 {
				return nil, p.errorf("unclosed {")
			}
			lo, hi, comma := strings.Cut(p.s[p.i+1:p.i+end], ",")
			var err1, err2 error
			min, err1 = strconv.Atoi(lo)
			max = min
			if comma {
				max, err2 = -1, nil
				if hi != "" {
					max, err2 = strconv.Atoi(hi)
				}
			}
			if err1 != nil || err2 != nil || min > 1000 || max > 1000 || max >= 0 && max < min {
				return nil, p.errorf("bad repeat %s", p.s[p.i:p.i+end+1])
			}
			p.i += end + 1
		default:
			return atom, nil
		}
		r := &patNode{kind: kindRepeat, subs: []*patNode{atom}, min: min, max: max}
		if p.i < len(p.s) && p.s[p.i] == '?' {
			r.lazy = true
			p.i++
		}
		atom = r
	}
	return atom, nil
}

func (p *patParser) atom() (*patNode, error) {
	c := p.s[p.i]
	switch c {
	case '(':
		return p.group()
	case '[':
		return p.class()
	case '.':
		p.i++
		return &patNode{op: patRune, ranges: []rune{'\n', '\n'}, negate: true}, nil
	case '^', '$':
		p.i++
		op := patEndText
		if c == '^' {
			op = patBeginText
		}
		if p.multi {
			op += patBeginLine - patBeginText
		}
		return &patNode{op: op}, nil
	case '\\':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == 'b' || p.s[p.i+1] == 'B') {
			op := patWordBoundary
			if p.s[p.i+1] == 'B' {
				op = patNoWordBoundary
			}
			p.i += 2
			return &patNode{op: op}, nil
		}
		ranges, negate, err := p.escape()
		if err != nil {
			return nil, err
		}
		return &patNode{op: patRune, ranges: ranges, negate: negate, fold: p.fold}, nil
	case '*', '+', '?', '{', ')':
		return nil, p.errorf("missing argument to repetition operator or unexpected %q", c)
	}
	r, size := utf8.DecodeRuneInString(p.s[p.i:])
	p.i += size
	return &patNode{op: patRune, ranges: []rune{r, r}, fold: p.fold}, nil
}

func (p *patParser) group() (*patNode, error) {
	p.i++
	g := &patNode{kind: kindGroup}
	if strings.HasPrefix(p.s[p.i:], "?:") {
		p.i += 2
		g.capture = -1
	} else if p.i < len(p.s) && p.s[p.i] == '?' {
		return nil, p.errorf("unsupported group")
	} else {
		p.groups++
		g.capture = p.groups
	}
	fold, multi := p.fold, p.multi // flags set inside end with the group
	sub, err := p.alternation()
	if err != nil {
		return nil, err
	}
	p.fold, p.multi = fold, multi
	if p.i >= len(p.s) || p.s[p.i] != ')' {
		return nil, p.errorf("missing )")
	}
	p.i++
	g.subs = []*patNode{sub}
	return g, nil
}

// perlClass is package regexp's ASCII class \c as rune ranges, false for another letter (a function, not a
// map literal: that would be code run at init in the agent).
func perlClass(c byte) ([]rune, bool) {
	switch c {
	case 'd':
		return []rune{'0', '9'}, true
	case 's':
		return []rune{'\t', '\n', '\f', '\r', ' ', ' '}, true
	case 'w':
		return []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}, true
	}
	return nil, false
}

// escape reads \x at p.i: a Perl class (negated for \D \S \W) or one literal rune.
func (p *patParser) escape() ([]rune, bool, error) {
	if p.i+1 >= len(p.s) {
		return nil, false, p.errorf("trailing backslash")
	}
	c := p.s[p.i+1]
	p.i += 2
	if cl, ok := perlClass(c | 0x20); ok && (c|0x20 == c || c >= 'A' && c <= 'Z') {
		return cl, c >= 'A' && c <= 'Z', nil
	}
	lit := map[byte]rune{'t': '\t', 'n': '\n', 'r': '\r', 'f': '\f'}
	if r, ok := lit[c]; ok {
		return []rune{r, r}, false, nil
	}
	if c < utf8.RuneSelf && strings.IndexByte(`\.+*?()|[]{}^$-/"'#=:,<>!&~@%`, c) >= 0 {
		return []rune{rune(c), rune(c)}, false, nil
	}
	p.i -= 2
	return nil, false, p.errorf("unsupported escape")
}

// class reads [...] or [^...].
func (p *patParser) class() (*patNode, error) {
	p.i++
	n := &patNode{op: patRune, fold: p.fold}
	if p.i < len(p.s) && p.s[p.i] == '^' {
		n.negate = true
		p.i++
	}
	for first := true; ; first = false {
		if p.i >= len(p.s) {
			return nil, p.errorf("missing ]")
		}
		if p.s[p.i] == ']' && !first {
			p.i++
			return n, nil
		}
		if p.s[p.i] == '\\' {
			ranges, negate, err := p.escape()
			if err != nil {
				return nil, err
			}
			if negate {
				return nil, p.errorf("negated class inside a class")
			}
			if p.i+1 < len(p.s) && p.s[p.i] == '-' && p.s[p.i+1] != ']' {
				return nil, p.errorf("range from an escape")
			}
			n.ranges = append(n.ranges, ranges...)
			continue
		}
		lo, size := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += size
		hi := lo
		if p.i+1 < len(p.s) && p.s[p.i] == '-' && p.s[p.i+1] != ']' {
			h, size := utf8.DecodeRuneInString(p.s[p.i+1:])
			if h < lo {
				return nil, p.errorf("bad range")
			}
			hi = h
			p.i += 1 + size
		}
		n.ranges = append(n.ranges, lo, hi)
	}
}
