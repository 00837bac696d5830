package opensslspeed

import (
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// Human-readable `openssl speed` output: "Doing ..." progress lines and the result tables, OpenSSL 1.0.x–3.6.

var (
	// Doing aes-128-cbc for 3s on 16 size blocks: 123 aes-128-cbc's in 3.00s
	// Doing AES-128-CBC ops for 3s on 16 size blocks: 123 AES-128-CBC ops in 3.00s   (3.2+)
	speedDoingSymRE = protocol.MustPattern(`^Doing (.+?)(?: ops)? for (\d+(?:\.\d+)?)s on (\d+) size blocks:(.*)$`)
	// Doing 2048 bits private rsa's for 10s: 2239 2048 bits private RSA's in 1.00s
	// Doing 2048 bits private rsa sign ops for 10s: ...                               (3.5+)
	speedDoingAsymRE = protocol.MustPattern(`^Doing (\d+) bits? (.*?)(?:'s| ops) for (\d+(?:\.\d+)?)s:(.*)$`)
	// Doing rsa2048 keygen ops for 10s: 390 rsa2048 KEM keygen ops in 9.93s              (3.5+ KEM and signatures)
	speedDoingKEMRE = protocol.MustPattern(`^Doing (\S+) (keygen|encaps|decaps|signs|sign|verify) ops for (\d+(?:\.\d+)?)s:(.*)$`)
	// counts are read as any number, so that a negative or absurd one is refused rather than missed
	speedResultRE  = protocol.MustPattern(`(?:^|\s)(` + speedNumPat + `)\s(?:.*\s)?in\s+(-?\d+(?:\.\d+)?)s\s*$`)
	speedAsymResRE = protocol.MustPattern(`(?:^|\s)(` + speedNumPat + `)\s+\d+[- ]bits?\s.*\sin\s+(-?\d+(?:\.\d+)?)s\s*$`)
	speedKEMResRE  = protocol.MustPattern(`(?:^|\s)(` + speedNumPat + `)\s+\S+\s+(KEM|signature)\s.*\sin\s+(-?\d+(?:\.\d+)?)s\s*$`)
	speedValueRE   = protocol.MustPattern(`^\d+\.\d+k?$`)
	speedGluedRE   = protocol.MustPattern(`^(.*?[^\d.])(\d+\.\d{2}k?)$`)
	speedRowNameRE = protocol.MustPattern(`^[A-Za-z][A-Za-z0-9 ()/_.,+-]*$`)
)

// speedNumPat is a count as openssl prints it, or as a hand-edited capture may spell it.
const speedNumPat = `-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`

// speedHeaderSizes reads the block sizes of a "type 16 bytes 64 bytes ..." header.
func speedHeaderSizes(line string) []int {
	f := strings.Fields(line)
	var sizes []int
	for i := 1; i+1 < len(f); i += 2 {
		n, err := strconv.Atoi(f[i])
		if err != nil || f[i+1] != "bytes" || n <= 0 {
			return nil
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// speedSplitRow splits a table row into its name and its values in bytes per second ("12.34k" is 12340 B/s;
// a plain number is bytes per second: openssl prints small rates without the k). A value glued to the name by a
// too-narrow column is split off.
func speedSplitRow(line string) (name string, vals []float64, ok bool) {
	f := strings.Fields(line)
	i := len(f)
	for i > 0 && speedValueRE.MatchString(f[i-1]) {
		i--
	}
	if i == len(f) {
		return "", nil, false
	}
	nameTok := append([]string(nil), f[:i]...)
	valTok := f[i:]
	if len(nameTok) > 0 {
		last := nameTok[len(nameTok)-1]
		if m := speedGluedRE.FindStringSubmatch(last); m != nil {
			nameTok[len(nameTok)-1] = m[1]
			valTok = append([]string{m[2]}, valTok...)
		}
	}
	name = strings.Join(nameTok, " ")
	if name == "" || !speedRowNameRE.MatchString(name) {
		return "", nil, false
	}
	for _, t := range valTok {
		mult := 1.0
		if strings.HasSuffix(t, "k") {
			t, mult = t[:len(t)-1], 1000
		}
		v, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return "", nil, false
		}
		vals = append(vals, v*mult)
	}
	return name, vals, true
}

// speedDoing is one parsed "Doing ..." line.
type speedDoing struct {
	key      speedKey
	name     string // the algorithm as printed
	nominal  float64
	count    float64
	seconds  float64
	hasCount bool
	tail     string // whatever came between the colon and the result (error text from an engine, ...)
	problem  string // a value out of bounds: the line gives no measurement
}

// result reads the count and seconds of a result, refusing what no measurement can have.
func (d *speedDoing) result(count, seconds string) {
	var msg, msg2 string
	d.count, msg = speedNumber(count, "count", MaxCount)
	d.seconds, msg2 = speedNumber(seconds, "seconds", MaxSeconds)
	d.hasCount = true
	if msg != "" || msg2 != "" {
		d.problem = strings.TrimPrefix(msg+"; "+msg2, "; ")
	}
}

// parseSpeedDoing parses a "Doing ..." line; ok is false when the line is not one.
func parseSpeedDoing(line string, decrypt bool) (d speedDoing, ok bool) {
	line = strings.Join(strings.Fields(line), " ")
	if m := speedDoingSymRE.FindStringSubmatch(line); m != nil {
		d.name = m[1]
		d.nominal, _ = strconv.ParseFloat(m[2], 64)
		size, err := strconv.Atoi(m[3])
		if err != nil {
			size = -1
		}
		if msg := speedCheckSize(size); msg != "" {
			d.problem = msg
			return d, true
		}
		alg := CanonicalAlgorithm(d.name)
		d.key = speedKey{alg: alg, op: speedSymOp(alg, decrypt), block: size}
		d.tail = strings.TrimSpace(m[4])
		if r := speedResultRE.FindStringSubmatch(m[4]); r != nil {
			d.result(r[1], r[2])
			d.tail = strings.TrimSpace(strings.TrimSuffix(m[4], r[0]))
		}
		return d, true
	}
	if m := speedDoingKEMRE.FindStringSubmatch(line); m != nil {
		d.name = m[1]
		d.nominal, _ = strconv.ParseFloat(m[3], 64)
		kind := "kem"
		if r := speedKEMResRE.FindStringSubmatch(m[4]); r != nil {
			d.result(r[1], r[3])
			if r[2] == "signature" {
				kind = "sig"
			}
		} else if m[2] == "signs" || m[2] == "sign" || m[2] == "verify" {
			kind = "sig"
		}
		d.key = speedKEMKey(m[1], kind, m[2])
		return d, true
	}
	if m := speedDoingAsymRE.FindStringSubmatch(line); m != nil {
		bits, err := strconv.Atoi(m[1])
		if err != nil {
			return d, false
		}
		d.key, ok = speedAsymKey(bits, strings.Fields(m[2]))
		if !ok {
			return d, false
		}
		d.name = m[2]
		d.nominal, _ = strconv.ParseFloat(m[3], 64)
		if r := speedAsymResRE.FindStringSubmatch(m[4]); r != nil {
			d.result(r[1], r[2])
		}
		return d, true
	}
	return d, false
}

// speedAsymKey reads the words of an asymmetric progress line: "private rsa", "sign ecdsa", "ecdh",
// "sign Ed25519", "private rsa sign" (3.5+), "sign CurveSM2", "ffdh".
func speedAsymKey(bits int, words []string) (speedKey, bool) {
	k := speedKey{bits: bits}
	var role string
	for _, w := range words {
		lw := strings.ToLower(w)
		switch lw {
		case "private", "public":
			role = lw
		case "sign", "verify", "encrypt", "decrypt":
			k.op = lw
		case "rsa", "dsa", "ecdsa", "ecdh", "ffdh":
			k.alg = lw
		default:
			if a, ok := canonAsymName(lw); ok && a.curve != "" {
				k.alg, k.curve = a.alg, a.curve
			} else {
				return k, false
			}
		}
	}
	switch {
	case k.alg == "":
		return k, false
	case k.alg == "ecdh" || k.alg == "ffdh":
		k.op = "derive"
	case k.op == "" && role == "private":
		k.op = "sign"
	case k.op == "" && role == "public":
		k.op = "verify"
	}
	return k, k.op != ""
}

// speedKEMKey names a 3.5+ KEM or signature-algorithm row: "rsa2048" in the KEM table is the RSA KEM
// ("rsa-kem", 2048 bits); a post-quantum name such as "ML-KEM-768" keeps its name.
func speedKEMKey(name, kind, op string) speedKey {
	if op == "signs" {
		op = "sign"
	}
	n := CanonicalAlgorithm(name)
	k := speedKey{alg: n, op: op}
	if a, ok := canonAsymName(strings.ToLower(name)); ok {
		k.alg, k.bits, k.curve = a.alg, a.bits, a.curve
	}
	if kind == "kem" && !strings.Contains(k.alg, "kem") {
		k.alg += "-kem"
	}
	if kind == "sig" && (k.alg == "rsa" || k.alg == "ecdsa" || k.alg == "dsa") {
		k.alg += "-sig"
	}
	return k
}

// speedAsymRow is one row of an asymmetric result table.
type speedAsymRow struct {
	keys  []speedKey
	rates []float64 // ops/s, one per key
}

var (
	speedRSARowRE  = protocol.MustPattern(`^(rsa|dsa)\s+(\d+)\s+bits?((?:\s+\S+s)+)((?:\s+[\d.]+)+)$`)
	speedECRowRE   = protocol.MustPattern(`^(\d+)\s+bits?\s+(ecdsa|ecdh|EdDSA|SM2)\s+\(([^)]+)\)((?:\s+\S+s)+)((?:\s+[\d.]+)+)$`)
	speedFFDHRowRE = protocol.MustPattern(`^(\d+)\s+bits?\s+ffdh((?:\s+\S+s)+)((?:\s+[\d.]+)+)$`)
	speedKEMRowRE  = protocol.MustPattern(`^(\S+)((?:\s+[\d.]+s){3})((?:\s+[\d.]+){3})$`)
)

// parseSpeedAsymRow reads a row of the table announced by header (see speedAsymHeader).
func parseSpeedAsymRow(line, header string) (speedAsymRow, bool) {
	var r speedAsymRow
	var base speedKey
	var ops []string
	var rates string
	if m := speedRSARowRE.FindStringSubmatch(line); m != nil {
		bits, _ := strconv.Atoi(m[2])
		base = speedKey{alg: m[1], bits: bits}
		ops = []string{"sign", "verify"}
		if header == "rsa4" {
			ops = []string{"sign", "verify", "encrypt", "decrypt"}
		}
		rates = m[4]
	} else if m := speedECRowRE.FindStringSubmatch(line); m != nil {
		bits, _ := strconv.Atoi(m[1])
		base = speedKey{alg: strings.ToLower(m[2]), bits: bits, curve: canonCurve(m[3])}
		ops = []string{"sign", "verify"}
		if base.alg == "ecdh" {
			ops = []string{"derive"}
		}
		rates = m[5]
	} else if m := speedFFDHRowRE.FindStringSubmatch(line); m != nil {
		bits, _ := strconv.Atoi(m[1])
		base = speedKey{alg: "ffdh", bits: bits}
		ops = []string{"derive"}
		rates = m[3]
	} else if m := speedKEMRowRE.FindStringSubmatch(line); m != nil && (header == "kem" || header == "sig") {
		rates = m[3]
		for _, op := range map[string][]string{"kem": {"keygen", "encaps", "decaps"}, "sig": {"keygen", "sign", "verify"}}[header] {
			r.keys = append(r.keys, speedKEMKey(m[1], header, op))
		}
	} else {
		return r, false
	}
	if r.keys == nil {
		for _, op := range ops {
			k := base
			k.op = op
			r.keys = append(r.keys, k)
		}
	}
	f := strings.Fields(rates)
	if len(f) != len(r.keys) {
		return r, false
	}
	for _, t := range f {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return r, false
		}
		r.rates = append(r.rates, v)
	}
	return r, true
}

// speedAsymHeader recognises the header line of an asymmetric table and names its layout.
func speedAsymHeader(line string) string {
	f := strings.Join(strings.Fields(line), " ")
	switch {
	case f == "sign verify encrypt decrypt sign/s verify/s encr./s decr./s":
		return "rsa4"
	case f == "sign verify sign/s verify/s":
		return "sv"
	case f == "op op/s":
		return "op"
	case f == "keygen encaps decaps keygens/s encaps/s decaps/s":
		return "kem"
	case f == "keygen signs verify keygens/s sign/s verify/s":
		return "sig"
	}
	return ""
}
