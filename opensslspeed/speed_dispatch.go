package opensslspeed

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// A logical line is tried against each kind of line in a fixed order, and the first kind that claims it reads
// it: the order is part of the format (a "Got: +R…" line is a child's -mr line before it is any other "+" line,
// an unknown-algorithm error inside a table is the table's before it is a usage error). Each handler below says
// whether it claimed the line; what none claims is read as a table row, if a table is open.

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

// line dispatches one logical line.
func (p *speedParser) line(l speedLine) {
	defer func() { p.prev = l.num }()
	if l.note != "" {
		p.note(l)
		return
	}
	t := l.text
	if t == "" {
		return
	}
	if p.progressLine(t, l.num) || p.attrLine(t, l.num) || p.tableHeadLine(t, l.num) || p.timeVCommandLine(t, l.num) ||
		p.errorLine(t, l.num) {
		return
	}
	p.rowLine(t, l.num)
}

// note keeps a reader's note (a skipped line) for the current run, or for the first run when none has started.
func (p *speedParser) note(l speedLine) {
	if len(p.runs) > 0 {
		p.cur(l.num).warn(l.note)
	} else if len(p.early) < 32 {
		p.early = append(p.early, l.note)
	}
}

// progressLine reads a command line, a -multi child's line ("Got: …", "Forked child N"), a -mr line or a
// "Doing …" progress line.
func (p *speedParser) progressLine(t string, line int) bool {
	if argv := speedCommandLine(t); argv != nil {
		p.start(line, argv)
		return true
	}
	if m := speedGotRE.FindStringSubmatch(t); m != nil {
		p.gotLine(m[1], m[2], line)
		return true
	}
	if m := speedForkedRE.FindStringSubmatch(t); m != nil {
		p.forkedLine(m[1], line)
		return true
	}
	if strings.HasPrefix(t, "+") {
		p.mrLine(t, line, -1)
		return true
	}
	if strings.HasPrefix(t, "Doing ") {
		p.doing(t, line)
		return true
	}
	return false
}

// speedChild reads the number of a -multi child, or says why it is refused.
func speedChild(s string) (int, string) {
	child, err := strconv.Atoi(s)
	if err != nil || child >= MaxThreads {
		return 0, "-multi child " + s + " is out of range: refused (accepted 0 to " + strconv.Itoa(MaxThreads-1) + ")"
	}
	return child, ""
}

// gotLine reads "Got: +LINE from CHILD": the -mr line a -multi parent relays from one of its children.
func (p *speedParser) gotLine(mr, childText string, line int) {
	b := p.cur(line)
	child, bad := speedChild(childText)
	if bad != "" {
		b.problem(line, bad)
		return
	}
	b.evidence = true
	b.multi = true
	b.children = max(b.children, child+1)
	p.mrLine(mr, line, child)
}

// forkedLine reads "Forked child N": a -multi run, and a new one when the current run has finished and this is
// its first child again (or the current run was not -multi).
func (p *speedParser) forkedLine(childText string, line int) {
	b := p.cur(line)
	child, bad := speedChild(childText)
	if bad != "" {
		b.problem(line, bad)
		return
	}
	if b.finished() && (child == 0 || !b.multi) {
		b = p.start(line, nil)
	}
	b.multi, b.evidence = true, true
	b.children = max(b.children, child+1)
}

// attrLine reads a run-level line: the elapsed-time notice, an engine set or refused, the version, CPUINFO.
func (p *speedParser) attrLine(t string, line int) bool {
	if strings.HasPrefix(t, "You have chosen to measure elapsed time") {
		a := p.attrs(line)
		a.elapsed, a.evidence = true, true
		return true
	}
	if m := speedEngineSetRE.FindStringSubmatch(t); m != nil {
		if b := p.cur(line); b.engine != "" && b.engine != m[1] {
			p.start(line, nil)
		}
		a := p.attrs(line)
		a.engine, a.evidence = m[1], true
		return true
	}
	if m := speedInvalidEngRE.FindStringSubmatch(t); m != nil {
		a := p.attrs(line)
		a.engine, a.evidence = m[1], true
		a.fail(`engine "` + m[1] + `" did not load (openssl: "` + t + `"); its numbers are a software fallback`)
		return true
	}
	if m := speedVersionRE.FindStringSubmatch(t); m != nil {
		if a := p.attrs(line); a.version == "" {
			a.version = m[1] + m[2]
		}
		return true
	}
	if m := speedCPUInfoRE.FindStringSubmatch(t); m != nil {
		p.cpuInfoLine(t, m[1], m[2], line)
		return true
	}
	return false
}

// cpuInfoLine reads "CPUINFO: OPENSSL_xxx=… env:VALUE": the capability variable and, when set, its value.
func (p *speedParser) cpuInfoLine(t, name, env string, line int) {
	a := p.attrs(line)
	a.cpuCap, a.cpuEnv = name, nil
	if !strings.Contains(t, " env:") { // OpenSSL prints env: with the variable's value when it is set
		return
	}
	a.cpuEnv = &env
	if name == "OPENSSL_ia32cap" {
		if _, err := ParseIA32Cap(env); err != nil {
			p.cur(line).problem(line, "CPUINFO env: "+err.Error()+": refused")
		}
	}
}

// tableHeadLine reads what opens a table: the symmetric table's preamble or its "type … bytes" header, or an
// asymmetric table's header. A symmetric table after one with values is another run's.
func (p *speedParser) tableHeadLine(t string, line int) bool {
	if strings.HasPrefix(t, "The 'numbers' are in 1000s of bytes per second") {
		b := p.cur(line)
		if b.hasTableValues() {
			b = p.start(line, nil)
		}
		b.symTable = true
		return true
	}
	if speedTableHeadRE.MatchString(t) {
		p.symHeader(t, line)
		return true
	}
	if h := speedAsymHeader(t); h != "" {
		p.cur(line).asymHead = h
		return true
	}
	return false
}

// symHeader reads a symmetric table's "type 16 bytes 64 bytes …" header; block sizes out of bounds refuse it.
func (p *speedParser) symHeader(t string, line int) {
	sizes := speedHeaderSizes(t)
	if sizes == nil {
		p.cur(line).problem(line, "table header "+strconv.Quote(t)+": block sizes are not numbers from 1 to "+
			strconv.Itoa(MaxBlockSize)+": refused")
		return
	}
	b := p.cur(line)
	if b.hasTableValues() {
		b = p.start(line, nil)
	}
	b.sizes, b.symTable, b.lastRow = sizes, true, 0
	for _, n := range sizes {
		if msg := speedCheckSize(n); msg != "" {
			b.problem(line, "table header: "+msg)
			b.sizes = nil
			break
		}
	}
}

// timeVCommandLine reads the lines of `time -v`'s report: its times, and the command it names, which gives a
// log without the prompt line its command.
func (p *speedParser) timeVCommandLine(t string, line int) bool {
	if m := speedTimeVRE.FindStringSubmatch(t); m != nil {
		p.cur(line).timeVLine(m[1], m[2])
		return true
	}
	cmd, ok := strings.CutPrefix(t, `Command being timed: "`)
	if !ok {
		return false
	}
	if argv := speedCommandLine(strings.TrimSuffix(cmd, `"`)); argv != nil {
		if b := p.cur(line); b.cmd == nil {
			b.cmd, b.cmdInfo = argv, parseSpeedCmd(argv, nil)
		}
	}
	return true
}

// errorLine reads what openssl prints when something goes wrong: an unknown algorithm inside a run, a usage
// error (the command was refused), an engine's errors, another error-stack line.
func (p *speedParser) errorLine(t string, line int) bool {
	if m := speedUnknownAlgRE.FindStringSubmatch(t); m != nil && len(p.runs) > 0 && len(p.cur(line).slots) > 0 {
		// one algorithm of a run that measured others (a loop of commands, stderr between table rows): the
		// error concerns that algorithm, not the run, and a table goes on after it
		b := p.cur(line)
		b.warn("line " + strconv.Itoa(line) + ": openssl: " + strconv.Quote(m[1]) + " is an unknown cipher or digest; no points for it")
		b.tableGoesOn(p.prev, line)
		return true
	}
	if speedUsageRE.MatchString(t) {
		b := p.cur(line)
		if !b.refused && b.finished() {
			b = p.start(line, nil) // a refused command prints no results: this one is not the run before
		}
		b.fail("openssl refused the command: " + t)
		b.evidence, b.refused = true, true
		return true
	}
	if strings.Contains(t, "ALG_PERR:") || (speedErrStackRE.MatchString(t) && speedEngineError(t)) {
		a := p.attrs(line)
		a.fail("engine reported errors, numbers may be a software fallback: " + t)
		a.evidence = true
		return true
	}
	if speedErrStackRE.MatchString(t) {
		b := p.cur(line)
		b.warn("openssl error: " + t)
		b.tableGoesOn(p.prev, line)
		return true
	}
	return false
}

// speedEngineError says whether an OpenSSL error-stack line comes from an engine at work: one of protocol.Modes'.
func speedEngineError(t string) bool {
	l := strings.ToLower(t)
	return slices.ContainsFunc(protocol.ModeEngines(), func(e string) bool { return strings.Contains(l, e) })
}

// rowLine reads a line no other kind claimed as a row of the open table: asymmetric, symmetric, or a symmetric
// row without a header (also before any run, in a capture cut by tail above its header). Anything else is prose.
func (p *speedParser) rowLine(t string, line int) {
	if len(p.runs) == 0 && speedHeaderlessRow(t) {
		if name, vals, ok := speedSplitRow(t); ok && (len(p.hint.Sizes) > 0 || len(vals) >= len(protocol.DefaultSizes)-1) {
			p.headerlessRow(p.cur(line), name, vals, line)
			return
		}
	}
	if len(p.runs) == 0 {
		return
	}
	b := p.cur(line)
	if b.asymHead != "" {
		if r, ok := parseSpeedAsymRow(t, b.asymHead); ok {
			p.asymRow(r, line)
			return
		}
	}
	if b.symTable || len(b.sizes) > 0 {
		if name, vals, ok := speedSplitRow(t); ok {
			p.symRow(name, vals, line)
		} else if n := speedRowValues(t); n > 0 && n == len(b.sizes) {
			// a row by its values whose name no algorithm has (control characters, stray symbols)
			b.problem(line, "table row "+strconv.Quote(t)+": its name is not an algorithm name: refused")
			b.tableGoesOn(p.prev, line)
		}
	} else if name, vals, ok := speedSplitRow(t); ok && speedHeaderlessRow(t) {
		p.headerlessRow(b, name, vals, line)
	}
}
