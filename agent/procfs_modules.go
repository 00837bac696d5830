package agent

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// parseProcModules returns the module names of /proc/modules ("name size refcount deps state address"), in file
// order. A line without the six fields is refused with its number; the names before it are kept.
func parseProcModules(r io.Reader) ([]string, error) {
	var names []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 5 || !validModuleName(fields[0]) {
			return names, fmt.Errorf("parse /proc/modules line %d: %q is not \"name size refcount deps state address\"", n, trimForError(line))
		}
		names = append(names, fields[0])
	}
	if err := sc.Err(); err != nil {
		return names, fmt.Errorf("parse /proc/modules: %w", err)
	}
	return names, nil
}

func validModuleName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func trimForError(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Module names are filtered to the crypto-related ones because the whole list changes with every USB stick,
// Wi-Fi dongle or debugging module a lab plugs in, and `changes` would name that noise beside a real step. A
// module is crypto-related when /proc/crypto names it as the provider of an algorithm, or when a part of its
// name ("_" or "-" separated) names crypto: a hashing or cipher algorithm, the kernel's crypto plumbing
// (cryptd, af_alg, algif_*, cryptodev) or a known accelerator driver (caam, sa2ul, cesa, ccp, qat...).
var (
	cryptoModulePrefixes = []string{"aes", "sha1", "sha2", "sha3", "sha5", "crypt", "algif", "ghash", "chacha",
		"poly1305", "curve25519", "blake2", "sm3", "sm4", "caam", "cesa", "sa2ul", "talitos", "qat", "ccree",
		"nitrox", "polyval", "twofish", "serpent", "camellia", "cast5", "cast6", "blowfish"}
	cryptoModuleTokens = map[string]bool{"alg": true, "des": true, "des3": true, "md5": true, "gcm": true, "ccm": true,
		"ctr": true, "cbc": true, "xts": true, "ecb": true, "cmac": true, "hmac": true, "rsa": true, "ecdh": true,
		"ecdsa": true, "ecc": true, "ccp": true, "sham": true, "ce": true, "neon": true, "ss": true, "xcbc": true,
		"authenc": true, "essiv": true, "seqiv": true, "echainiv": true, "kpp": true, "akcipher": true}
)

// cryptoModules picks the crypto-related names of mods, sorted and without repeats; nil when mods is nil (no
// /proc/modules), empty when none of them is crypto-related.
func cryptoModules(mods []string, algs []protocol.CryptoAlg) []string {
	if mods == nil {
		return nil
	}
	provider := map[string]bool{}
	for _, a := range algs {
		provider[a.Module] = true
	}
	seen := map[string]bool{}
	out := []string{}
	for _, m := range mods {
		if !seen[m] && (provider[m] || cryptoModuleName(m)) {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

func cryptoModuleName(m string) bool {
	for _, tok := range strings.FieldsFunc(strings.ToLower(m), func(r rune) bool { return r == '_' || r == '-' }) {
		if cryptoModuleTokens[tok] {
			return true
		}
		for _, p := range cryptoModulePrefixes {
			if strings.HasPrefix(tok, p) {
				return true
			}
		}
	}
	return false
}
