package opensslspeed

// OpenSSL's ECDSA and ECDH progress lines ("Doing 163 bits sign ecdsa's for 10s: …") give the bit size and not
// the curve, and several curves share a size (nistk163 and nistb163; brainpoolP512r1 and brainpoolP512t1). The
// final tables name the curve. So that one command stays one run, a progress line whose size repeats is another
// curve of that size when OpenSSL's own order of curves (the same in 1.0.x, 1.1.1 and 3.x; newer versions only
// append) has one left after the last curve seen, among the curves the command line asked for. Its slot stays
// curve-less and the table row of that curve adopts it: rows and progress lines come in the same order, so the
// first curve-less slot of a size belongs to the first table row of that size.

// speedCurve is one entry of OpenSSL's curve table.
type speedCurve struct {
	name string // canonical, as canonCurve spells it
	bits int
}

// speedECCurves is the order in which `openssl speed` runs its ECDSA curves (apps/speed.c, ec_curves[]).
var speedECCurves = []speedCurve{
	{"secp160r1", 160}, {"nistp192", 192}, {"nistp224", 224}, {"nistp256", 256}, {"nistp384", 384},
	{"nistp521", 521}, {"nistk163", 163}, {"nistk233", 233}, {"nistk283", 283}, {"nistk409", 409},
	{"nistk571", 571}, {"nistb163", 163}, {"nistb233", 233}, {"nistb283", 283}, {"nistb409", 409},
	{"nistb571", 571}, {"brainpoolp256r1", 256}, {"brainpoolp256t1", 256}, {"brainpoolp384r1", 384},
	{"brainpoolp384t1", 384}, {"brainpoolp512r1", 512}, {"brainpoolp512t1", 512},
}

// speedECDHCurves: ECDH runs the same curves, then X25519 and X448.
var speedECDHCurves = append(append([]speedCurve(nil), speedECCurves...), speedCurve{"x25519", 253},
	speedCurve{"x448", 448})

// speedCurveOrder is the curve table of an algorithm whose progress lines name no curve, nil for the others.
func speedCurveOrder(alg string) []speedCurve {
	switch alg {
	case "ecdsa":
		return speedECCurves
	case "ecdh":
		return speedECDHCurves
	}
	return nil
}

// speedCurveAsked says whether the command line c asked for curve of alg: with no command line, or one naming
// no curve of alg ("ecdsa", or no algorithm at all), every curve.
func speedCurveAsked(c *speedCmd, alg, curve string) bool {
	if c == nil {
		return true
	}
	named := false
	for _, a := range c.algs {
		n, ok := canonAsymName(a)
		if !ok || n.alg != alg {
			continue
		}
		if n.curve == "" {
			return true
		}
		named = true
		if n.curve == curve {
			return true
		}
	}
	return !named
}

// nextCurve advances the run's position in the curve table of key.alg for a progress line of key (curve-less)
// and says whether it names a curve not yet measured: the first operation of a curve (sign, derive) moves to the
// next asked-for curve of key.bits; the second (verify) stays on the curve of the sign before it.
func (b *speedRunBuilder) nextCurve(key speedKey) bool {
	order := speedCurveOrder(key.alg)
	if order == nil {
		return false
	}
	if b.curvePos == nil {
		b.curvePos = map[string]int{}
	}
	pos, seen := b.curvePos[key.alg]
	if !seen {
		pos = -1
	}
	if key.op == "verify" {
		return pos >= 0 && order[pos].bits == key.bits && b.countedCurveless(key) < b.countedCurveless(speedKey{alg: key.alg, op: "sign", bits: key.bits})
	}
	for i := pos + 1; i < len(order); i++ {
		if order[i].bits == key.bits && speedCurveAsked(b.cmdInfo, key.alg, order[i].name) {
			b.curvePos[key.alg] = i
			return true
		}
	}
	return false
}

// countedCurveless counts the slots of key's algorithm, operation and size that a progress line filled.
func (b *speedRunBuilder) countedCurveless(key speedKey) int {
	n := 0
	for _, s := range b.slots {
		k := s.key
		if k.alg == key.alg && k.op == key.op && k.bits == key.bits && k.block == 0 && s.hasCount {
			n++
		}
	}
	return n
}
