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
	pt := protocol.Point{Mode: r.Mode, Algorithm: k.alg, Op: k.op, BlockSize: k.block, KeyBits: k.bits, Curve: k.curve,
		Threads: r.Threads, Engine: r.Engine, Timing: r.Timing, Flags: append([]string(nil), s.flags...)}
	if pt.Algorithm == "" {
		return pt, false
	}
	asym := k.block == 0
	unit := float64(k.block)
	if asym {
		unit = 1
	}
	if s.nominal > 0 {
		nominal = s.nominal
	}
	nominalKnown := nominal > 0
	if nominal <= 0 {
		nominal = speedDefaultSymSeconds
		if asym {
			nominal = speedDefaultAsymSeconds
		}
		if s.hasCount && r.Timing == "cpu" {
			pt.Flags = append(pt.Flags, "nominal seconds assumed: openssl default "+speedFmt(nominal)+" s")
		}
	}
	if s.hasCount {
		pt.Count, pt.Seconds, pt.Line = s.count, s.seconds, s.countLine
	}
	var rate float64
	switch {
	case s.hasValue && (!s.valueMR || !s.hasCount):
		rate, pt.Line = s.value, s.valueLine
		if r.Timing == "cpu" && s.hasCount {
			pt.WallEst = math.Max(nominal, s.seconds)
			if s.count > 0 {
				rate, pt.Line = s.count*unit/pt.WallEst, s.countLine
			}
			pt.Flags = append(pt.Flags, "cpu-timed: openssl reported "+speedFmt(s.value)+" "+speedUnit(asym)+
				" on user CPU time; rate re-derived on "+speedWallBasis(nominal, s.seconds))
		} else if r.Timing == "cpu" {
			pt.Flags = append(pt.Flags, "cpu-timed: openssl's rate on user CPU time; no count to re-derive a wall rate")
		}
	case s.hasCount:
		switch {
		case r.Timing == "cpu":
			pt.WallEst = math.Max(nominal, s.seconds)
			rate = s.count * unit / pt.WallEst
			if s.seconds > 0 {
				pt.Flags = append(pt.Flags, "cpu-timed: openssl reported "+speedFmt(s.count*unit/s.seconds)+" "+
					speedUnit(asym)+" on user CPU time; rate re-derived on "+speedWallBasis(nominal, s.seconds))
			} else {
				pt.Flags = append(pt.Flags, "zero-seconds: openssl measured 0.00 s of user CPU time; rate re-derived on "+
					speedWallBasis(nominal, s.seconds))
			}
		case s.seconds > 0:
			rate = s.count * unit / s.seconds
		default:
			pt.Failed = true
			pt.Error = "openssl reported " + speedFmt(s.count) + " operations in 0.00 s: no rate"
		}
	case len(s.children) > 0:
		ids := make([]int, 0, len(s.children))
		for id, v := range s.children {
			ids = append(ids, id)
			rate += v
		}
		pt.Line = s.childLine
		pt.Flags = append(pt.Flags, "multi: sum of "+strconv.Itoa(len(ids))+" children's rates (no total in the output)")
		if len(ids) < r.Threads {
			pt.Failed = true
			pt.Error = "multi: only " + strconv.Itoa(len(ids)) + " of " + strconv.Itoa(r.Threads) + " children reported"
		}
	default:
		return pt, false
	}
	if s.hasCount && s.count == 0 && !pt.Failed {
		pt.Failed = true
		pt.Error = "openssl counted 0 operations"
	}
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		rate = 0
		pt.Failed = true
		pt.Error = "rate not computable"
	}
	maxRate, what := MaxBytesPerSec, "rate (B/s)"
	if asym {
		maxRate, what = MaxOpsPerSec, "rate (ops/s)"
	}
	if msg := speedCheck(rate, what, maxRate); msg != "" {
		b.problem(pt.Line, k.alg+": "+msg)
		return pt, false
	}
	if math.IsNaN(pt.Seconds) || math.IsInf(pt.Seconds, 0) || math.IsNaN(pt.Count) || math.IsInf(pt.Count, 0) {
		pt.Count, pt.Seconds = 0, 0
	}
	if asym {
		pt.OpsPerSec = rate
	} else {
		pt.BytesPerSec = rate
	}
	if r.Timing == "cpu" && s.hasCount && s.count > 0 && nominalKnown && !pt.Failed {
		pt.Evidence = cpuShareEvidence(s.seconds, nominal)
	}
	if b.multi {
		pt.Flags = append(pt.Flags, "multi: total of "+strconv.Itoa(r.Threads)+" processes timed on wall clock")
	}
	if b.timeV.has&7 == 7 {
		pt.WallS, pt.UserS, pt.SysS = b.timeV.wall, b.timeV.user, b.timeV.sys
		if b.timeV.wall > 0 {
			pt.CPUPct = (b.timeV.user + b.timeV.sys) / b.timeV.wall * 100
		}
		pt.Flags = append(pt.Flags, "cpu accounting from time -v of the whole command")
	}
	return pt, true
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
