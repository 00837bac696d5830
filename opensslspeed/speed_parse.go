package opensslspeed

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// speedRunBuilder accumulates one run while the text is read.
type speedRunBuilder struct {
	line       int
	cmd        []string // as found in the text
	cmdInfo    *speedCmd
	slots      []*speedSlot
	sizes      []int // block sizes of the current table header or +H line
	lastRow    int   // line of the last symmetric table row: rows are contiguous, a gap ends the table
	asymHead   string
	symTable   bool // a symmetric result table (or -mr +F) has been printed
	multi      bool
	children   int
	warnings   []string
	lastDT     speedDoing // -mr: the last +DT/+DTP line
	hasLastDT  bool
	timeV      speedTimeV
	refused    bool // openssl refused the command line: it printed no results and anything after is another run
	problems   []Problem
	hintAlg    string         // Hint.Algorithm: names "evp" rows when the command line does not
	headerless int            // line of the first table row read without a header and without anything naming its columns
	curvePos   map[string]int // ecdsa/ecdh: index in speedCurveOrder of the curve of the last progress line
	speedAttrs
}

type speedParser struct {
	hint    Hint
	runs    []*speedRunBuilder
	prev    int         // number of the previous logical line
	pending *speedAttrs // run-level lines after a finished run, not yet settled (see speed_attrs.go)
	early   []string    // warnings from before the first run, given to it
}

var (
	speedEngineSetRE  = protocol.MustPattern(`(?i)^engine "([^"]*)" set\.?$`)
	speedInvalidEngRE = protocol.MustPattern(`(?i)^invalid engine "([^"]*)"`)
	speedVersionRE    = protocol.MustPattern(`^(?:version: (\S+)|OpenSSL (\d+\.\d+\.\d+[a-z]*(?:-\S+)?)\s)`)
	speedCPUInfoRE    = protocol.MustPattern(`^CPUINFO: (OPENSSL_\w+)=\S*(?:\s+env:(\S*))?`)
	speedForkedRE     = protocol.MustPattern(`^Forked child (\d+)$`)
	speedGotRE        = protocol.MustPattern(`^Got: (\+\S+) from (\d+)$`)
	speedErrStackRE   = protocol.MustPattern(`^[0-9A-Fa-f]+:error:`)
	speedUsageRE      = protocol.MustPattern(`^(?:speed: Unknown (?:algorithm|option|cipher).*|speed: .* is an unknown cipher or digest.*|Error: bad option or value.*|speed: Use -help for summary\.?|Invalid (?:cipher|digest|algorithm).*)$`)
	speedUnknownAlgRE = protocol.MustPattern(`^speed: (.+) is an unknown cipher or digest`)
	speedTimeVRE      = protocol.MustPattern(`^(User time \(seconds\)|System time \(seconds\)|Elapsed \(wall clock\) time \(h:mm:ss or m:ss\)): (.+)$`)
)

// cur returns the run being read, starting one at line if there is none.
func (p *speedParser) cur(line int) *speedRunBuilder {
	if len(p.runs) == 0 {
		return p.start(line, nil)
	}
	return p.runs[len(p.runs)-1]
}

func (p *speedParser) start(line int, cmd []string) *speedRunBuilder {
	if cmd != nil && len(p.runs) > 0 {
		p.settle(p.runs[len(p.runs)-1]) // what came before a command line belongs to the run before it
	}
	b := &speedRunBuilder{line: line, cmd: cmd, hintAlg: p.hint.Algorithm}
	b.evidence = cmd != nil
	for _, w := range p.early {
		b.warn(w)
	}
	p.early = nil
	argv, env := cmd, []string(nil)
	if cmd == nil {
		argv, env = p.hint.Command, p.hint.Env
	}
	if argv != nil || env != nil {
		b.cmdInfo = parseSpeedCmd(argv, env)
		if b.cmdInfo.multi > 0 {
			b.multi = true
		}
		if b.cmdInfo.bad != "" {
			b.problem(line, b.cmdInfo.bad)
		}
	}
	p.runs = append(p.runs, b)
	return b
}

// line dispatches one logical line.
func (p *speedParser) line(l speedLine) {
	t := l.text
	defer func() { p.prev = l.num }()
	if l.note != "" {
		if len(p.runs) > 0 {
			p.cur(l.num).warn(l.note)
		} else {
			if len(p.early) < 32 {
				p.early = append(p.early, l.note)
			}
		}
		return
	}
	if t == "" {
		return
	}
	if argv := speedCommandLine(t); argv != nil {
		p.start(l.num, argv)
		return
	}
	if m := speedGotRE.FindStringSubmatch(t); m != nil {
		child, err := strconv.Atoi(m[2])
		b := p.cur(l.num)
		if err != nil || child >= MaxThreads {
			b.problem(l.num, "-multi child "+m[2]+" is out of range: refused (accepted 0 to "+strconv.Itoa(MaxThreads-1)+")")
			return
		}
		b.evidence = true
		b.multi = true
		b.children = max(b.children, child+1)
		p.mrLine(m[1], l.num, child)
		return
	}
	if m := speedForkedRE.FindStringSubmatch(t); m != nil {
		child, err := strconv.Atoi(m[1])
		b := p.cur(l.num)
		if err != nil || child >= MaxThreads {
			b.problem(l.num, "-multi child "+m[1]+" is out of range: refused (accepted 0 to "+strconv.Itoa(MaxThreads-1)+")")
			return
		}
		if b.finished() && (child == 0 || !b.multi) {
			b = p.start(l.num, nil)
		}
		b.multi, b.evidence = true, true
		b.children = max(b.children, child+1)
		return
	}
	if strings.HasPrefix(t, "+") {
		p.mrLine(t, l.num, -1)
		return
	}
	if strings.HasPrefix(t, "Doing ") {
		p.doing(t, l.num)
		return
	}
	if strings.HasPrefix(t, "You have chosen to measure elapsed time") {
		a := p.attrs(l.num)
		a.elapsed, a.evidence = true, true
		return
	}
	if m := speedEngineSetRE.FindStringSubmatch(t); m != nil {
		if b := p.cur(l.num); b.engine != "" && b.engine != m[1] {
			p.start(l.num, nil)
		}
		a := p.attrs(l.num)
		a.engine, a.evidence = m[1], true
		return
	}
	if m := speedInvalidEngRE.FindStringSubmatch(t); m != nil {
		a := p.attrs(l.num)
		a.engine, a.evidence = m[1], true
		a.fail(`engine "` + m[1] + `" did not load (openssl: "` + t + `"); its numbers are a software fallback`)
		return
	}
	if m := speedVersionRE.FindStringSubmatch(t); m != nil {
		if a := p.attrs(l.num); a.version == "" {
			a.version = m[1] + m[2]
		}
		return
	}
	if m := speedCPUInfoRE.FindStringSubmatch(t); m != nil {
		a := p.attrs(l.num)
		a.cpuCap, a.cpuEnv = m[1], nil
		if strings.Contains(t, " env:") { // OpenSSL prints env: with the variable's value when it is set
			v := m[2]
			a.cpuEnv = &v
			if m[1] == "OPENSSL_ia32cap" {
				if _, err := ParseIA32Cap(v); err != nil {
					p.cur(l.num).problem(l.num, "CPUINFO env: "+err.Error()+": refused")
				}
			}
		}
		return
	}
	if strings.HasPrefix(t, "The 'numbers' are in 1000s of bytes per second") {
		b := p.cur(l.num)
		if b.hasTableValues() {
			b = p.start(l.num, nil)
		}
		b.symTable = true
		return
	}
	if speedTableHeadRE.MatchString(t) {
		if sizes := speedHeaderSizes(t); sizes != nil {
			b := p.cur(l.num)
			if b.hasTableValues() {
				b = p.start(l.num, nil)
			}
			b.sizes, b.symTable, b.lastRow = sizes, true, 0
			for _, n := range sizes {
				if msg := speedCheckSize(n); msg != "" {
					b.problem(l.num, "table header: "+msg)
					b.sizes = nil
					break
				}
			}
		} else {
			p.cur(l.num).problem(l.num, "table header "+strconv.Quote(t)+": block sizes are not numbers from 1 to "+
				strconv.Itoa(MaxBlockSize)+": refused")
		}
		return
	}
	if h := speedAsymHeader(t); h != "" {
		p.cur(l.num).asymHead = h
		return
	}
	if m := speedTimeVRE.FindStringSubmatch(t); m != nil {
		p.cur(l.num).timeVLine(m[1], m[2])
		return
	}
	if cmd, ok := strings.CutPrefix(t, `Command being timed: "`); ok {
		// a log without the prompt line still names the command in time -v's report
		if argv := speedCommandLine(strings.TrimSuffix(cmd, `"`)); argv != nil {
			if b := p.cur(l.num); b.cmd == nil {
				b.cmd, b.cmdInfo = argv, parseSpeedCmd(argv, nil)
			}
		}
		return
	}
	if m := speedUnknownAlgRE.FindStringSubmatch(t); m != nil && len(p.runs) > 0 && len(p.cur(l.num).slots) > 0 {
		// one algorithm of a run that measured others (a loop of commands, stderr between table rows): the
		// error concerns that algorithm, not the run, and a table goes on after it
		b := p.cur(l.num)
		b.warn("line " + strconv.Itoa(l.num) + ": openssl: " + strconv.Quote(m[1]) + " is an unknown cipher or digest; no points for it")
		b.tableGoesOn(p.prev, l.num)
		return
	}
	if speedUsageRE.MatchString(t) {
		b := p.cur(l.num)
		if !b.refused && b.finished() {
			b = p.start(l.num, nil) // a refused command prints no results: this one is not the run before
		}
		b.fail("openssl refused the command: " + t)
		b.evidence, b.refused = true, true
		return
	}
	if strings.Contains(t, "ALG_PERR:") || (speedErrStackRE.MatchString(t) && speedEngineError(t)) {
		a := p.attrs(l.num)
		a.fail("engine reported errors, numbers may be a software fallback: " + t)
		a.evidence = true
		return
	}
	if speedErrStackRE.MatchString(t) {
		b := p.cur(l.num)
		b.warn("openssl error: " + t)
		b.tableGoesOn(p.prev, l.num)
		return
	}
	if len(p.runs) == 0 && speedHeaderlessRow(t) {
		// a capture that starts with table rows: cut by tail above its header
		if name, vals, ok := speedSplitRow(t); ok && (len(p.hint.Sizes) > 0 || len(vals) >= len(protocol.DefaultSizes)-1) {
			p.headerlessRow(p.cur(l.num), name, vals, l.num)
			return
		}
	}
	if len(p.runs) > 0 {
		b := p.cur(l.num)
		if b.asymHead != "" {
			if r, ok := parseSpeedAsymRow(t, b.asymHead); ok {
				p.asymRow(r, l.num)
				return
			}
		}
		if b.symTable || len(b.sizes) > 0 {
			if name, vals, ok := speedSplitRow(t); ok {
				p.symRow(name, vals, l.num)
			} else if n := speedRowValues(t); n > 0 && n == len(b.sizes) {
				// a row by its values whose name no algorithm has (control characters, stray symbols)
				b.problem(l.num, "table row "+strconv.Quote(t)+": its name is not an algorithm name: refused")
				b.tableGoesOn(p.prev, l.num)
			}
		} else if name, vals, ok := speedSplitRow(t); ok && speedHeaderlessRow(t) {
			p.headerlessRow(b, name, vals, l.num)
		}
	}
}

// speedEngineError says whether an OpenSSL error-stack line comes from an engine at work: one of protocol.Modes'.
func speedEngineError(t string) bool {
	l := strings.ToLower(t)
	return slices.ContainsFunc(protocol.ModeEngines(), func(e string) bool { return strings.Contains(l, e) })
}

// tableGoesOn lets a table's rows continue across an error line at line when the line before it was a row.
func (b *speedRunBuilder) tableGoesOn(prev, line int) {
	if b.lastRow != 0 && b.lastRow == prev {
		b.lastRow = line
	}
}

func (b *speedRunBuilder) warn(w string) {
	for _, have := range b.warnings {
		if have == w {
			return
		}
	}
	if len(b.warnings) < 32 {
		b.warnings = append(b.warnings, w)
	}
}

func (b *speedRunBuilder) decrypt() bool { return b.cmdInfo != nil && b.cmdInfo.decrypt }

// resolve turns a row name into a canonical algorithm: "evp" into the -evp argument of the command, else
// Hint.Algorithm. An "evp" that neither names is a Problem (ErrUnnamedEVP) and resolves to "".
func (b *speedRunBuilder) resolve(name string, line int) string {
	alg := CanonicalAlgorithm(name)
	if alg != "evp" {
		return alg
	}
	switch {
	case b.cmdInfo != nil && b.cmdInfo.evp != "":
		return CanonicalAlgorithm(b.cmdInfo.evp)
	case b.cmdInfo != nil && b.cmdInfo.hmac != "":
		return "hmac-" + CanonicalAlgorithm(b.cmdInfo.hmac)
	case b.hintAlg != "":
		return CanonicalAlgorithm(b.hintAlg)
	}
	b.problemErr(line, ErrUnnamedEVP.Error(), ErrUnnamedEVP)
	return ""
}

func (p *speedParser) doing(t string, line int) {
	b := p.cur(line)
	d, ok := parseSpeedDoing(t, b.decrypt())
	if !ok {
		return
	}
	if d.problem != "" {
		b.problem(line, d.problem)
		return
	}
	if d.key.block > 0 {
		if d.key.alg = b.resolve(d.name, line); d.key.alg == "" {
			return
		}
		d.key.op = speedSymOp(d.key.alg, b.decrypt())
	}
	if !d.hasCount {
		b.slot(d.key, true, line).nominal = d.nominal
	} else {
		var s *speedSlot
		b, s = p.countSlot(d.key, line)
		s.count, s.seconds, s.hasCount, s.countLine, s.nominal = d.count, d.seconds, true, line, d.nominal
	}
	// an engine that fails at work (afalg's "ALG_PERR: ... Failed to bind socket") prints between the progress
	// line and its result, and openssl goes on in software
	if strings.Contains(d.tail, "ALG_PERR") || strings.Contains(strings.ToLower(d.tail), "error") {
		b.fail("engine reported errors, numbers may be a software fallback: " + d.tail)
	}
}

func (p *speedParser) symRow(name string, vals []float64, line int) {
	b := p.cur(line)
	if b.lastRow != 0 && b.lastRow != p.prev {
		if len(b.sizes) < 2 || len(vals) != len(b.sizes) {
			return // prose after the table, not a row
		}
		// a blank line or a comment inside a pasted table: the rows below it are the table's still
		b.warn("line " + strconv.Itoa(line) + ": a row after a break in the table (lines " + strconv.Itoa(b.lastRow+1) +
			"–" + strconv.Itoa(line-1) + " are not rows), read as part of it")
	}
	sizes := b.sizes
	if len(sizes) != len(vals) && len(sizes) > 1 {
		// a header names the columns: a ragged row is not guessed at
		b.problem(line, "row "+strconv.Quote(name)+" has "+strconv.Itoa(len(vals))+" values for the "+
			strconv.Itoa(len(sizes))+" block sizes of its table header: refused")
		b.lastRow = line
		return
	}
	if len(sizes) != len(vals) {
		if b.cmdInfo != nil && b.cmdInfo.bytes > 0 && b.cmdInfo.bad == "" && len(vals) == 1 {
			sizes = []int{b.cmdInfo.bytes}
		} else if len(vals) == len(protocol.DefaultSizes) || len(vals) == len(protocol.DefaultSizes)-1 {
			// OpenSSL before 1.1.1 printed no 16384 column: the first five default sizes.
			sizes = protocol.DefaultSizes[:len(vals):len(vals)]
			b.warn("table without header: block sizes assumed " + speedIntsString(sizes))
		} else {
			return
		}
	}
	b.lastRow = line
	alg := b.resolve(name, line)
	if alg == "" {
		return
	}
	op := speedSymOp(alg, b.decrypt())
	allZero := true
	for _, v := range vals {
		allZero = allZero && v == 0
	}
	if allZero {
		b.warn(alg + ": openssl printed 0.00 for every size (not built or not run); no points")
		return
	}
	for i, v := range vals {
		key := speedKey{alg: alg, op: op, block: sizes[i]}
		if v == 0 {
			b.warn(alg + " at " + strconv.Itoa(sizes[i]) + " bytes: openssl printed 0.00; no point")
			continue
		}
		if msg := speedCheck(v, "rate (B/s)", MaxBytesPerSec); msg != "" {
			b.problem(line, alg+" at "+strconv.Itoa(sizes[i])+" bytes: "+msg)
			continue
		}
		nb, s := p.valueSlot(key, line)
		b, b.lastRow = nb, line
		s.value, s.hasValue, s.valueLine, s.valueMR = v, true, line, false
	}
}

func (p *speedParser) asymRow(r speedAsymRow, line int) {
	for i, key := range r.keys {
		if r.rates[i] <= 0 {
			p.cur(line).warn(key.alg + " " + key.op + ": openssl printed a zero rate; no point")
			continue
		}
		if msg := speedCheck(r.rates[i], key.alg+" "+key.op+" rate (ops/s)", MaxOpsPerSec); msg != "" {
			p.cur(line).problem(line, msg)
			continue
		}
		_, s := p.valueSlot(key, line)
		s.value, s.hasValue, s.valueLine, s.valueMR = r.rates[i], true, line, false
	}
}

func speedIntsString(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
