package agent

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// ParseProcCrypto parses /proc/crypto: one protocol.CryptoAlg per entry (entries are separated by blank lines or start at
// a "name" line). Fields it does not know are ignored; a missing priority is 0.
func ParseProcCrypto(r io.Reader) ([]protocol.CryptoAlg, error) {
	var algs []protocol.CryptoAlg
	var cur *protocol.CryptoAlg
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			cur = nil
			continue
		}
		key, val, ok := strings.Cut(text, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if key == "name" {
			algs = append(algs, protocol.CryptoAlg{Name: val})
			cur = &algs[len(algs)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "driver":
			cur.Driver = val
		case "module":
			cur.Module = val
		case "type":
			cur.Type = val
		case "selftest":
			cur.Selftest = val
		case "async":
			cur.Async = val == "yes"
		case "internal":
			cur.Internal = val == "yes"
		case "priority":
			p, err := strconv.Atoi(val)
			if err != nil {
				return algs, fmt.Errorf("parse /proc/crypto line %d: priority %q: %w", line, val, err)
			}
			cur.Priority = p
		}
	}
	if err := sc.Err(); err != nil {
		return algs, fmt.Errorf("read /proc/crypto: %w", err)
	}
	return algs, nil
}

// bestCryptoDriver returns the driver the kernel picks for name and an AF_ALG socket of kind ("" for any kind),
// "" when none matches.
func bestCryptoDriver(algs []protocol.CryptoAlg, name, kind string) string {
	a, _ := protocol.PickCryptoAlg(algs, name, kind)
	return a.Driver
}
