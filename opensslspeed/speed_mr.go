package opensslspeed

import (
	"math"
	"strconv"
	"strings"
)

// Machine-readable (-mr) output: +DT/+DTP announce a measurement, +R/+Rn give its count and time, +H the block
// sizes, +F the bytes per second per size and +F2..+F8 the asymmetric results. Children of -multi print the same
// lines to the parent, which echoes them as "Got: LINE from N".

// speedMRCurves is the order of the curves in -mr +F4/+F5 lines (index → curve, bits), the same in 1.0–3.x.
var speedMRCurves = []struct {
	name string
	bits int
}{
	{"secp160r1", 160}, {"nistp192", 192}, {"nistp224", 224}, {"nistp256", 256}, {"nistp384", 384},
	{"nistp521", 521}, {"nistk163", 163}, {"nistk233", 233}, {"nistk283", 283}, {"nistk409", 409},
	{"nistk571", 571}, {"nistb163", 163}, {"nistb233", 233}, {"nistb283", 283}, {"nistb409", 409},
	{"nistb571", 571}, {"brainpoolp256r1", 256}, {"brainpoolp256t1", 256}, {"brainpoolp384r1", 384},
	{"brainpoolp384t1", 384}, {"brainpoolp512r1", 512}, {"brainpoolp512t1", 512}, {"x25519", 253}, {"x448", 448},
}

// mrLine handles one -mr line; child is the -multi child that sent it, -1 for the process itself.
func (p *speedParser) mrLine(t string, line, child int) {
	f := strings.Split(t, ":")
	tag := f[0]
	b := p.cur(line)
	switch {
	case tag == "+DT" && len(f) == 4:
		b.mrDT(f, line)
	case tag == "+DTP" && len(f) >= 5:
		b.mrDTP(f)
	case tag == "+R" && len(f) >= 4:
		p.mrResult(b, f, line, func(d speedDoing) bool {
			return d.key.block > 0 && CanonicalAlgorithm(f[2]) == CanonicalAlgorithm(d.name)
		})
	case strings.HasPrefix(tag, "+R") && len(f) >= 4:
		p.mrRn(b, tag, f, line)
	case tag == "+H":
		b.mrH(f, line)
	case tag == "+F" && len(f) >= 4:
		p.mrF(b, f, line, child)
	case len(tag) >= 3 && strings.HasPrefix(tag, "+F"):
		p.mrAsymResult(b, tag, f, line, child)
	}
}

// mrDT reads "+DT:ALG:SECONDS:SIZE", which announces a symmetric measurement.
func (b *speedRunBuilder) mrDT(f []string, line int) {
	size, err := strconv.Atoi(f[3])
	secs, err2 := strconv.ParseFloat(f[2], 64)
	if err != nil || err2 != nil {
		return
	}
	b.hasLastDT = false
	if msg := speedCheckSize(size); msg != "" {
		b.problem(line, msg)
		return
	}
	alg := b.resolve(f[1], line)
	if alg == "" {
		return
	}
	if msg := speedBadName(alg); msg != "" {
		b.problem(line, "algorithm "+msg)
		return
	}
	b.lastDT = speedDoing{key: speedKey{alg: alg, op: speedSymOp(alg, b.decrypt()), block: size}, name: f[1], nominal: secs}
	b.hasLastDT = true
}

// mrDTP reads "+DTP:BITS:NAME…:SECONDS", which announces an asymmetric measurement.
func (b *speedRunBuilder) mrDTP(f []string) {
	bits, err := strconv.Atoi(f[1])
	secs, err2 := strconv.ParseFloat(f[len(f)-1], 64)
	if err != nil || err2 != nil {
		return
	}
	key, ok := speedAsymKey(bits, strings.Fields(strings.Join(f[2:len(f)-1], " ")))
	if !ok {
		b.hasLastDT = false
		return
	}
	b.lastDT = speedDoing{key: key, nominal: secs}
	b.hasLastDT = true
}

// mrRn reads a "+Rn:COUNT:…:SECONDS" asymmetric count; from 3.5 +R15..+R20 (KEM and signature algorithms) name
// their algorithm themselves, without a +DTP line.
func (p *speedParser) mrRn(b *speedRunBuilder, tag string, f []string, line int) {
	n, err := strconv.Atoi(tag[2:])
	if err != nil {
		return
	}
	if n >= 15 && n <= 20 {
		op := []string{"keygen", "encaps", "decaps", "keygen", "sign", "verify"}[n-15]
		kind := "kem"
		if n >= 18 {
			kind = "sig"
		}
		b.lastDT = speedDoing{key: speedKEMKey(f[2], kind, op), nominal: p.hintSeconds(b)}
		b.hasLastDT = true
	}
	p.mrResult(b, f, line, func(d speedDoing) bool { return d.key.block == 0 })
}

// mrH reads "+H:SIZE:SIZE…", the block sizes of the +F lines that follow; one out of bounds refuses the line.
func (b *speedRunBuilder) mrH(f []string, line int) {
	var sizes []int
	for _, s := range f[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = -1
		}
		if msg := speedCheckSize(n); msg != "" {
			b.problem(line, "+H "+msg)
			return
		}
		sizes = append(sizes, n)
	}
	b.sizes = sizes
}

// mrF reads "+F:N:ALG:RATE…", the bytes per second of an algorithm at each +H size.
func (p *speedParser) mrF(b *speedRunBuilder, f []string, line, child int) {
	alg := b.resolve(f[2], line)
	if alg == "" {
		return
	}
	op := speedSymOp(alg, b.decrypt())
	for i, s := range f[3:] {
		if i >= len(b.sizes) {
			b.warn("-mr +F line with more values than +H sizes")
			break
		}
		v, msg := speedNumber(s, "rate (B/s)", MaxBytesPerSec)
		if msg != "" {
			b.problem(line, alg+" at "+strconv.Itoa(b.sizes[i])+" bytes: "+msg)
			continue
		}
		if v == 0 {
			continue
		}
		p.mrValue(speedKey{alg: alg, op: op, block: b.sizes[i]}, v, line, child)
	}
}

func (p *speedParser) hintSeconds(b *speedRunBuilder) float64 {
	if b.cmdInfo != nil && b.cmdInfo.seconds > 0 {
		return b.cmdInfo.seconds
	}
	return p.hint.Seconds
}

// mrResult records a +R/+Rn count for the measurement its +DT/+DTP line announced. The counts of -multi children
// interleave on stderr and cannot be told apart, so a multi run takes its rates from the parent's totals.
func (p *speedParser) mrResult(b *speedRunBuilder, f []string, line int, matches func(speedDoing) bool) {
	if !b.hasLastDT || !matches(b.lastDT) {
		return
	}
	d := b.lastDT
	if b.multi {
		s := b.slot(d.key, false, line)
		if s.nominal == 0 {
			s.nominal = d.nominal
		}
		return
	}
	count, msg := speedNumber(f[1], "count", MaxCount)
	secs, msg2 := speedNumber(f[len(f)-1], "seconds", MaxSeconds)
	if msg != "" || msg2 != "" {
		b.hasLastDT = false
		b.problem(line, strings.TrimPrefix(msg+"; "+msg2, "; "))
		return
	}
	b.hasLastDT = false
	_, s := p.countSlot(d.key, line)
	s.count, s.seconds, s.hasCount, s.countLine, s.nominal = count, secs, true, line, d.nominal
}

// mrValue records a +F rate: a child's share under -multi, else the run's own result (or the parent's total).
func (p *speedParser) mrValue(key speedKey, v float64, line, child int) {
	if child >= 0 {
		s := p.cur(line).slot(key, false, line)
		if s.children == nil {
			s.children = map[int]float64{}
		}
		s.children[child] = v
		s.childLine = line
		return
	}
	_, s := p.valueSlot(key, line)
	s.value, s.hasValue, s.valueLine, s.valueMR = v, true, line, true
}

// mrAsymResult reads +F2 (rsa), +F3 (dsa), +F4 (ecdsa), +F5 (ecdh), +F6 (eddsa), +F7 (sm2), +F8 (ffdh).
// Up to 1.0.x the values of +F2..+F4 are seconds per operation and +F5 is (seconds, ops/s); from 1.1.1 they
// are ops/s and +F5/+F8 are (ops/s, seconds).
func (p *speedParser) mrAsymResult(b *speedRunBuilder, tag string, f []string, line, child int) {
	n, err := strconv.Atoi(tag[2:])
	if err != nil || n < 2 || n > 8 || len(f) < 4 {
		return
	}
	idx, err1 := strconv.Atoi(f[1])
	bits, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return
	}
	key, ops, rest, ok := speedMRAsymKey(n, idx, bits, f[3:])
	if !ok {
		return
	}
	vals := make([]float64, 0, len(rest))
	for _, s := range rest {
		v, msg := speedNumber(s, tag+" value", math.MaxFloat64)
		if msg != "" {
			b.problem(line, key.alg+": "+msg)
			return
		}
		vals = append(vals, v)
	}
	version := p.hint.Version
	if version == "" {
		version = b.version
	}
	rates, ok := speedMRAsymRates(len(ops), vals, version)
	if !ok {
		return
	}
	for i, op := range ops {
		if rates[i] <= 0 {
			continue
		}
		if msg := speedCheck(rates[i], key.alg+" "+op+" rate (ops/s)", MaxOpsPerSec); msg != "" {
			b.problem(line, msg)
			continue
		}
		k := key
		k.op = op
		p.mrValue(k, rates[i], line, child)
		if version == "" && len(ops) > 1 && vals[i] < 1 {
			s := p.cur(line).find(k, false)
			if s != nil {
				s.flags = append(s.flags, "mr-units-guessed: value < 1 read as seconds per operation")
			}
		}
	}
}

// speedMRAsymKey names the measurement of a +Fn line (n from 2 to 8) of curve index idx and bits, and its
// operations in the order of its values; rest are the values, without the curve name that +F6/+F7 print first.
// ok is false when a +F6/+F7 line is too short.
func speedMRAsymKey(n, idx, bits int, rest []string) (key speedKey, ops, values []string, ok bool) {
	key = speedKey{bits: bits}
	ops = []string{"sign", "verify"}
	switch n {
	case 2:
		key.alg = "rsa"
		if len(rest) == 4 {
			ops = []string{"sign", "verify", "encrypt", "decrypt"}
		}
	case 3:
		key.alg = "dsa"
	case 4, 5:
		key.alg = "ecdsa"
		if n == 5 {
			key.alg, ops = "ecdh", []string{"derive"}
		}
		if idx >= 0 && idx < len(speedMRCurves) && speedMRCurves[idx].bits == bits {
			key.curve = speedMRCurves[idx].name
		}
	case 6, 7:
		key.alg = map[int]string{6: "eddsa", 7: "sm2"}[n]
		if len(rest) < 3 {
			return key, nil, nil, false
		}
		key.curve, rest = canonCurve(rest[0]), rest[1:]
	case 8:
		key.alg, ops = "ffdh", []string{"derive"}
	}
	return key, ops, rest, true
}

// speedMRAsymRates turns the values of a +Fn line into ops/s, one per operation, by the units of version (see
// mrAsymResult); when the version is unknown a value below 1 is read as seconds per operation. ok is false when
// there are fewer values than operations.
func speedMRAsymRates(nops int, vals []float64, version string) (rates []float64, ok bool) {
	old := strings.HasPrefix(version, "1.0") || strings.HasPrefix(version, "0.9")
	rates = make([]float64, nops)
	switch {
	case nops == 1 && len(vals) >= 2: // (ops/s, s/op) from 1.1.1, (s/op, ops/s) before
		rates[0] = vals[0]
		if old || (version == "" && vals[1] > vals[0]) {
			rates[0] = vals[1]
		}
	case len(vals) >= nops:
		for i := range nops {
			rates[i] = vals[i]
			if (old || (version == "" && vals[i] > 0 && vals[i] < 1)) && vals[i] > 0 {
				rates[i] = 1 / vals[i]
			}
		}
	default:
		return nil, false
	}
	return rates, true
}
