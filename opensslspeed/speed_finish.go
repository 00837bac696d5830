package opensslspeed

import (
	"math"
	"sort"
	"strconv"

	"github.com/fleetlab/fleet/protocol"
)

// speedDefaultSeconds are OpenSSL's own durations when neither the output nor the command says: 3 s per block
// size for ciphers and digests, 10 s per asymmetric operation.
const (
	speedDefaultSymSeconds  = 3
	speedDefaultAsymSeconds = 10
)

// finish turns what was gathered into a Run with its points.
func (b *speedRunBuilder) finish(hint Hint) Run {
	r := Run{Line: b.line, Version: b.version, Engine: b.engine, Failed: b.failed, Threads: 1}
	if b.cmd != nil {
		r.Command = b.cmd
	} else if hint.Command != nil {
		r.Command = append([]string(nil), hint.Command...)
	}
	c := b.cmdInfo
	if b.cpuEnv != nil { // CPUINFO's env: is what openssl read, whatever the pasted command line says
		if c == nil {
			c = &speedCmd{env: map[string]string{}}
		}
		c.env[b.cpuCap] = *b.cpuEnv
	}
	mode, from, notes := c.mode(b.cpuCap)
	for _, n := range notes {
		b.warn(n)
	}
	if mode == "" && b.engine != "" {
		mode, from = speedEngineMode(b.engine), "engine line"
	}
	if mode == "" {
		mode = protocol.ModeCPU
	}
	r.Mode, r.ModeFrom = mode, from
	if r.Command != nil || c != nil || b.cpuCap != "" {
		r.Env, r.EnvKnown = c.openSSLEnv(), true
	}
	if r.Engine == "" && c != nil {
		r.Engine = c.engine
	}
	r.Timing = "cpu"
	if b.elapsed || (c != nil && c.elapsed) || b.multi {
		r.Timing = "wall"
	}
	if c != nil && c.multi > 0 {
		r.Threads = c.multi
	} else if b.children > 0 {
		r.Threads = b.children
		b.warn("thread count taken from the children visible in the output: " + strconv.Itoa(b.children))
	}
	nominal := hint.Seconds
	if c != nil && c.seconds > 0 {
		nominal = c.seconds
	}
	for _, s := range b.slots {
		if hint.Seconds > 0 && s.nominal > 0 && s.nominal != hint.Seconds && (c == nil || c.seconds == 0) {
			b.warn("ran " + speedFmt(s.nominal) + " s per point where " + speedFmt(hint.Seconds) +
				" s was asked: OpenSSL before 1.1.1 has no -seconds")
		}
		if pt, ok := b.point(s, r, nominal); ok {
			r.Points = append(r.Points, pt)
		}
	}
	sort.SliceStable(r.Points, func(i, j int) bool { return r.Points[i].Line < r.Points[j].Line })
	if r.Failed == "" {
		r.Failed = b.failed // a rate out of bounds was found just now
	}
	if r.Failed == "" && len(r.Points) == 0 && b.headerless > 0 {
		r.Failed = "line " + strconv.Itoa(b.headerless) + ": a table row without the \"type 16 bytes 64 bytes …\" header " +
			"that names its block sizes (a capture cut by tail?): include the header, the openssl speed command line, " +
			"or give the sizes (--sizes)"
	}
	if r.Failed == "" && len(r.Points) == 0 {
		r.Failed = "no measurements in the output"
	}
	if r.Failed != "" {
		for i := range r.Points {
			r.Points[i].Failed = true
			r.Points[i].Error = r.Failed
		}
	}
	r.Warnings = b.warnings
	r.Problems = b.problems
	return r
}

// point derives one protocol.Point from a slot; ok is false when the output holds no usable number for it.
func (b *speedRunBuilder) point(s *speedSlot, r Run, nominal float64) (protocol.Point, bool) {
	k := s.key
	d := speedPointDraft{s: s, timing: r.Timing, threads: r.Threads, asym: k.block == 0, unit: float64(k.block)}
	d.pt = protocol.Point{Mode: r.Mode, Algorithm: k.alg, Op: k.op, BlockSize: k.block, KeyBits: k.bits, Curve: k.curve,
		Threads: r.Threads, Engine: r.Engine, Timing: r.Timing, Flags: append([]string(nil), s.flags...)}
	if d.pt.Algorithm == "" {
		return d.pt, false
	}
	if d.asym {
		d.unit = 1
	}
	d.setNominal(nominal)
	if s.hasCount {
		d.pt.Count, d.pt.Seconds, d.pt.Line = s.count, s.seconds, s.countLine
	}
	rate, ok := d.rate()
	if !ok {
		return d.pt, false
	}
	rate = d.checkCount(rate)
	maxRate, what := MaxBytesPerSec, "rate (B/s)"
	if d.asym {
		maxRate, what = MaxOpsPerSec, "rate (ops/s)"
	}
	if msg := speedCheck(rate, what, maxRate); msg != "" {
		b.problem(d.pt.Line, k.alg+": "+msg)
		return d.pt, false
	}
	d.setRate(rate)
	b.runEvidence(&d.pt)
	return d.pt, true
}

// speedPointDraft is one point while its slot is read: the values each step of the derivation shares.
type speedPointDraft struct {
	pt           protocol.Point
	s            *speedSlot
	timing       string  // the run's: "cpu" rates are re-derived on the wall clock
	threads      int     // the run's -multi N: that many children must report
	asym         bool    // an asymmetric operation: ops/s, not B/s
	unit         float64 // what one counted operation is worth: its block in bytes, 1 for an asymmetric one
	nominal      float64 // seconds the line ran for, as printed, asked or OpenSSL's default
	nominalKnown bool    // nominal was printed or asked, not OpenSSL's default
}

// setNominal decides the seconds the line ran for: its own, else the run's, else OpenSSL's default (flagged
// when a CPU-timed rate is re-derived on it).
func (d *speedPointDraft) setNominal(nominal float64) {
	s := d.s
	if s.nominal > 0 {
		nominal = s.nominal
	}
	d.nominalKnown = nominal > 0
	if nominal <= 0 {
		nominal = speedDefaultSymSeconds
		if d.asym {
			nominal = speedDefaultAsymSeconds
		}
		if s.hasCount && d.timing == "cpu" {
			d.pt.Flags = append(d.pt.Flags, "nominal seconds assumed: openssl default "+speedFmt(nominal)+" s")
		}
	}
	d.nominal = nominal
}

// rate is the point's rate from what the slot holds: openssl's figure, its count and seconds, or the sum of
// -multi children's rates; ok is false when it holds none of them.
func (d *speedPointDraft) rate() (rate float64, ok bool) {
	s := d.s
	switch {
	case s.hasValue && (!s.valueMR || !s.hasCount):
		return d.valueRate(), true
	case s.hasCount:
		return d.countRate(), true
	case len(s.children) > 0:
		return d.childrenRate(), true
	}
	return 0, false
}

// valueRate is openssl's printed rate, re-derived from the count on the wall clock when the run is CPU-timed.
func (d *speedPointDraft) valueRate() float64 {
	s, pt := d.s, &d.pt
	rate := s.value
	pt.Line = s.valueLine
	if d.timing == "cpu" && s.hasCount {
		pt.WallEst = math.Max(d.nominal, s.seconds)
		if s.count > 0 {
			rate, pt.Line = s.count*d.unit/pt.WallEst, s.countLine
		}
		pt.Flags = append(pt.Flags, "cpu-timed: openssl reported "+speedFmt(s.value)+" "+speedUnit(d.asym)+
			" on user CPU time; rate re-derived on "+speedWallBasis(d.nominal, s.seconds))
	} else if d.timing == "cpu" {
		pt.Flags = append(pt.Flags, "cpu-timed: openssl's rate on user CPU time; no count to re-derive a wall rate")
	}
	return rate
}

// countRate is count × unit over the wall clock (CPU-timed) or over openssl's seconds; zero seconds on the wall
// clock fail the point.
func (d *speedPointDraft) countRate() float64 {
	s, pt := d.s, &d.pt
	switch {
	case d.timing == "cpu":
		pt.WallEst = math.Max(d.nominal, s.seconds)
		if s.seconds > 0 {
			pt.Flags = append(pt.Flags, "cpu-timed: openssl reported "+speedFmt(s.count*d.unit/s.seconds)+" "+
				speedUnit(d.asym)+" on user CPU time; rate re-derived on "+speedWallBasis(d.nominal, s.seconds))
		} else {
			pt.Flags = append(pt.Flags, "zero-seconds: openssl measured 0.00 s of user CPU time; rate re-derived on "+
				speedWallBasis(d.nominal, s.seconds))
		}
		return s.count * d.unit / pt.WallEst
	case s.seconds > 0:
		return s.count * d.unit / s.seconds
	}
	pt.Failed = true
	pt.Error = "openssl reported " + speedFmt(s.count) + " operations in 0.00 s: no rate"
	return 0
}

// childrenRate sums the -multi children's rates when the output has no total; fewer children than threads fail
// the point.
func (d *speedPointDraft) childrenRate() float64 {
	s, pt := d.s, &d.pt
	var rate float64
	for _, v := range s.children {
		rate += v
	}
	n := len(s.children)
	pt.Line = s.childLine
	pt.Flags = append(pt.Flags, "multi: sum of "+strconv.Itoa(n)+" children's rates (no total in the output)")
	if n < d.threads {
		pt.Failed = true
		pt.Error = "multi: only " + strconv.Itoa(n) + " of " + strconv.Itoa(d.threads) + " children reported"
	}
	return rate
}

// checkCount fails a point of zero operations, and one whose rate is not a number (returned as 0).
func (d *speedPointDraft) checkCount(rate float64) float64 {
	pt := &d.pt
	if d.s.hasCount && d.s.count == 0 && !pt.Failed {
		pt.Failed = true
		pt.Error = "openssl counted 0 operations"
	}
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		rate = 0
		pt.Failed = true
		pt.Error = "rate not computable"
	}
	return rate
}

// setRate stores a rate in bounds as B/s or ops/s, drops a count or seconds that are not finite, and gives a
// CPU-timed line that names its duration its CPU share.
func (d *speedPointDraft) setRate(rate float64) {
	s, pt := d.s, &d.pt
	if math.IsNaN(pt.Seconds) || math.IsInf(pt.Seconds, 0) || math.IsNaN(pt.Count) || math.IsInf(pt.Count, 0) {
		pt.Count, pt.Seconds = 0, 0
	}
	if d.asym {
		pt.OpsPerSec = rate
	} else {
		pt.BytesPerSec = rate
	}
	if d.timing == "cpu" && s.hasCount && s.count > 0 && d.nominalKnown && !pt.Failed {
		pt.Evidence = cpuShareEvidence(s.seconds, d.nominal)
	}
}

// runEvidence adds to a point what its run says about all its points: -multi wall timing, and time -v's
// accounting of the whole command.
func (b *speedRunBuilder) runEvidence(pt *protocol.Point) {
	if b.multi {
		pt.Flags = append(pt.Flags, "multi: total of "+strconv.Itoa(pt.Threads)+" processes timed on wall clock")
	}
	if b.timeV.has&7 == 7 {
		pt.WallS, pt.UserS, pt.SysS = b.timeV.wall, b.timeV.user, b.timeV.sys
		if b.timeV.wall > 0 {
			pt.CPUPct = (b.timeV.user + b.timeV.sys) / b.timeV.wall * 100
		}
		pt.Flags = append(pt.Flags, "cpu accounting from time -v of the whole command")
	}
}

// cpuShareEvidence is what a CPU-timed line says about its run: OpenSSL counted user CPU seconds ("in 1.35s") over
// a run of nominal wall seconds ("for 3s"), so their ratio is the share of the time the process had a CPU (45 %).
// Only a line that names its duration (a "Doing … for Ns" or +DT line, -seconds) gives it: a duration assumed
// from OpenSSL's default could be wrong by a factor. A count that ran past the alarm ("in 3.05s" of 3 s) had it
// all the time: 100 %.
func cpuShareEvidence(cpu, nominal float64) *protocol.Evidence {
	share := math.Min(cpu/nominal, 1) * 100
	if math.IsNaN(share) || share < 0 {
		return nil
	}
	share = math.Round(share*10) / 10
	return &protocol.Evidence{CPUSharePct: &share}
}

// speedWallBasis says what a CPU-timed rate was re-derived on: the nominal duration, or the CPU seconds when
// they are longer (a process cannot use more CPU time than the wall time it ran, so they bound it from below).
func speedWallBasis(nominal, cpu float64) string {
	if cpu > nominal {
		return speedFmt(cpu) + " s, the CPU time (longer than the nominal " + speedFmt(nominal) + " s)"
	}
	return speedFmt(nominal) + " s nominal wall time"
}

func speedUnit(asym bool) string {
	if asym {
		return "ops/s"
	}
	return "B/s"
}

func speedFmt(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
