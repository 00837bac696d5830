package reftable

import (
	"regexp"
	"strings"
)

// measure is what a value column holds.
type measure int

const (
	measureNone  measure = iota
	measureBytes         // throughput: bytes per second = value × factor
	measureCPU           // CPU %
	measureOps           // operations per second (sign, verify)
)

// unit is a unit as written in a header or a title.
type unit struct {
	measure measure
	factor  float64 // bytes per second in one unit, for measureBytes
	op      string  // sign or verify, for measureOps
}

// The definitions of the throughput units, in bytes per second, by one rule: the case of the symbol decides, as
// IEC 80000-13 writes it, "B" is a byte and "b" a bit, whatever follows ("Mb/s", "Mbps" and "Mbit/s" are all
// megabits; "MB/s" and "MBps" megabytes). Kilo, mega and giga are decimal (openssl speed prints 1000s of bytes,
// and every guide's figures come from it), written k or K, M and G; Ki, Mi and Gi are binary.
var bytesUnits = map[string]float64{
	"B/s": 1, "bytes/s": 1, "bytes/sec": 1,
	"KB/s": 1e3, "kB/s": 1e3, "KB/sec": 1e3, "kB/sec": 1e3, "KBps": 1e3, "kBps": 1e3,
	"KBytes/s": 1e3, "KBytes/Sec": 1e3, "KBytes/sec": 1e3, "kBytes/s": 1e3,
	"MB/s": 1e6, "MB/sec": 1e6, "MBps": 1e6, "MBytes/s": 1e6, "MBytes/Sec": 1e6, "MBytes/sec": 1e6,
	"GB/s": 1e9, "GB/sec": 1e9, "GBps": 1e9, "GBytes/s": 1e9,
	"KiB/s": 1 << 10, "MiB/s": 1 << 20, "GiB/s": 1 << 30,
	"kb/s": 1e3 / 8, "Kb/s": 1e3 / 8, "kb/sec": 1e3 / 8, "Kb/sec": 1e3 / 8, "kbit/s": 1e3 / 8, "Kbit/s": 1e3 / 8,
	"kbps": 1e3 / 8, "Kbps": 1e3 / 8,
	"Mb/s": 1e6 / 8, "Mb/sec": 1e6 / 8, "Mbit/s": 1e6 / 8, "Mbits/s": 1e6 / 8, "Mbit/sec": 1e6 / 8, "Mbps": 1e6 / 8,
	"Gb/s": 1e9 / 8, "Gb/sec": 1e9 / 8, "Gbit/s": 1e9 / 8, "Gbits/s": 1e9 / 8, "Gbps": 1e9 / 8,
}

// ambiguousUnits break the rule: a lower-case m or g is milli or nothing, so "mb/s" or "mbps" says neither the
// prefix nor (written carelessly, the case may be anyone's) bits or bytes.
var ambiguousUnits = map[string]bool{"mb/s": true, "mB/s": true, "mb/sec": true, "mbps": true, "mBps": true,
	"gb/s": true, "gB/s": true, "gbps": true}

var opsUnits = map[string]string{
	"sign/s": "sign", "sign/sec": "sign", "sign/second": "sign", "signs/s": "sign", "signs/second": "sign",
	"verify/s": "verify", "verify/sec": "verify", "verify/second": "verify", "verifies/s": "verify",
	"ops/s": "", "op/s": "", "operations/s": "",
}

// parseUnit reads one unit. ok is false for text that is no unit; ambiguous is true for one that could be bits
// or bytes.
func parseUnit(s string) (u unit, ok, ambiguous bool) {
	s = strings.Join(strings.Fields(s), "")
	switch {
	case s == "%":
		return unit{measure: measureCPU}, true, false
	case ambiguousUnits[s]:
		return unit{}, false, true
	}
	if f, ok := bytesUnits[s]; ok {
		return unit{measure: measureBytes, factor: f}, true, false
	}
	if op, ok := opsUnits[strings.ToLower(s)]; ok {
		return unit{measure: measureOps, op: op}, true, false
	}
	return unit{}, false, false
}

var titleUnitRE = regexp.MustCompile(`\b[KkMGmg]i?(?:B|b|Bytes|bit|bits)(?:/[Ss](?:ec)?|ps)\b|\bbytes/s\b`)

// titleUnit is the one throughput unit a table's title names, or CPU for a title about CPU usage.
// found is false when it names none; a title naming two units, or an ambiguous one, is an error text.
func titleUnit(title string) (u unit, found bool, problem string) {
	var seen []string
	for _, m := range titleUnitRE.FindAllString(title, -1) {
		v, ok, amb := parseUnit(m)
		if amb {
			return unit{}, false, "the title's unit " + m + " could be bits or bytes"
		}
		if !ok {
			continue
		}
		if len(seen) > 0 && v != u {
			return unit{}, false, "the title names two units, " + seen[0] + " and " + m
		}
		u, found = v, true
		seen = append(seen, m)
	}
	if !found {
		l := strings.ToLower(title)
		if strings.Contains(l, "cpu usage") || strings.Contains(l, "cpu load") || strings.Contains(l, "cpu utili") {
			return unit{measure: measureCPU}, true, ""
		}
	}
	return u, found, ""
}
