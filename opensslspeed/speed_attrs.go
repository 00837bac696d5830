package opensslspeed

// Run-level lines (elapsed-time notice, engine set or invalid, version, CPUINFO) open a run's output when stderr
// and stdout are merged, but follow its result table when they were captured separately and pasted one after
// the other. After a run has printed its results such a line is therefore held until the next measurement says
// whether it continues that run or starts a new one.

// speedAttrs are what run-level lines say about a run.
type speedAttrs struct {
	from     int // line of the first of them, where a run they start begins
	elapsed  bool
	engine   string
	failed   string
	version  string
	cpuCap   string
	cpuEnv   *string // CPUINFO's env: value, nil when it printed none (the variable was unset)
	evidence bool    // the text shows this is openssl speed output, not just a version line
}

func (a *speedAttrs) fail(reason string) {
	if a.failed == "" {
		a.failed = reason
	}
}

// finished says whether the run has printed results, so that what follows may belong to another run.
func (b *speedRunBuilder) finished() bool { return b.refused || b.hasTableValues() || b.symTableMR() }

// attrs returns where a run-level line at line goes: the current run, or the held attributes.
func (p *speedParser) attrs(line int) *speedAttrs {
	b := p.cur(line)
	if !b.finished() {
		return &b.speedAttrs
	}
	if p.pending == nil {
		p.pending = &speedAttrs{from: line}
	}
	return p.pending
}

// settle gives the held attributes to b, the run the next measurement went to.
func (p *speedParser) settle(b *speedRunBuilder) {
	a := p.pending
	if a == nil {
		return
	}
	p.pending = nil
	if a.from < b.line && len(b.slots) == 0 {
		b.line = a.from // the held lines opened this new run
	}
	b.elapsed = b.elapsed || a.elapsed
	b.evidence = b.evidence || a.evidence
	if a.engine != "" {
		b.engine = a.engine
	}
	if a.failed != "" {
		b.fail(a.failed)
	}
	if b.version == "" {
		b.version = a.version
	}
	if a.cpuCap != "" {
		b.cpuCap, b.cpuEnv = a.cpuCap, a.cpuEnv
	}
}
