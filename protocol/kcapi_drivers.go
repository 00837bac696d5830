package protocol

import (
	"fmt"
	"strings"
)

// Mode kcapi:DRIVER binds the agent's AF_ALG benchmark to one implementation by its /proc/crypto driver name
// (AF_ALG's salg_name takes a driver name as well as an algorithm name); kcapi:all measures every implementation
// each algorithm has on the board. Points carry the mode kcapi:DRIVER whichever of the two asked for them, so a
// driver's series is the same on every board that has it (cbc-aes-ce on two ARMv8 boards lines up).
const (
	KCAPIPrefix = "kcapi:"
	KCAPIAll    = "kcapi:all"

	// MaxKCAPIDriverLen is the longest driver name AF_ALG can bind: struct sockaddr_alg's salg_name has 64 bytes,
	// the last one the terminating NUL.
	MaxKCAPIDriverLen = 63
)

// KCAPIDriver returns the driver a kcapi:DRIVER mode names; ok is false for any other mode, kcapi:all included.
func KCAPIDriver(mode string) (driver string, ok bool) {
	d, ok := strings.CutPrefix(mode, KCAPIPrefix)
	if !ok || d == "" || mode == KCAPIAll {
		return "", false
	}
	return d, true
}

// IsKCAPIMode reports whether mode is measured by the agent's AF_ALG benchmark: kcapi, kcapi:all or kcapi:DRIVER.
func IsKCAPIMode(mode string) bool {
	return mode == ModeKCAPI || strings.HasPrefix(mode, KCAPIPrefix)
}

// CheckKCAPIDriverName says what is wrong with a driver name for mode kcapi:DRIVER, "" when nothing is. Kernel
// driver names are letters, digits and _ - . , ( ) (cbc-aes-ce, virtio_crypto_aes_cbc, cbc(aes-generic),
// authenc(hmac(sha256-ce),cbc(aes-ce))), at most MaxKCAPIDriverLen bytes, with balanced parentheses.
func CheckKCAPIDriverName(d string) string {
	if d == "" {
		return "empty driver name (expected kcapi:DRIVER, a /proc/crypto driver name, or kcapi:all)"
	}
	if len(d) > MaxKCAPIDriverLen {
		return fmt.Sprintf("driver name %q is %d bytes, AF_ALG binds at most %d", d, len(d), MaxKCAPIDriverLen)
	}
	depth := 0
	for _, r := range d {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("_-.,", r):
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth < 0 {
				return fmt.Sprintf("driver name %q: unbalanced parentheses", d)
			}
		default:
			return fmt.Sprintf("driver name %q: character %q (expected letters, digits, '_', '-', '.', ',', '(' or ')')", d, r)
		}
	}
	if depth != 0 {
		return fmt.Sprintf("driver name %q: unbalanced parentheses", d)
	}
	return ""
}

// cpuDriverSuffixes are the last words ('-' or '_' separated) of the driver names the kernel's CPU
// implementations register: crypto/*.c (aes-generic), arch/arm64/crypto (cbc-aes-ce, cbc-aes-neon, cbc-aes-neonbs,
// aes-arm64, sha256-arm64), arch/arm/crypto (aes-arm, sha256-asm, sha1-neon, chacha20-arm) and arch/x86/crypto
// (cbc-aes-aesni, sha256-avx2, sha256-ni, ghash-clmulni, crc32c-intel, chacha20-simd).
var cpuDriverSuffixes = map[string]bool{
	"generic": true, "ce": true, "neon": true, "neonbs": true, "bs": true, "arm": true, "arm64": true, "asm": true,
	"aesni": true, "avx": true, "avx2": true, "avx512": true, "ssse3": true, "sse2": true, "ni": true,
	"clmulni": true, "pclmul": true, "simd": true, "intel": true, "3way": true, "scalar": true, "lib": true,
	"time":  true,               // aes-fixed-time, crypto/aes_ti.c
	"sync":  true,               // arm ghash-ce-sync
	"scomp": true, "null": true, // software compression (lzo-scomp), ecb-cipher_null
}

// hardwareDriverPrefixes are hardware engines whose driver names end like a CPU implementation's: Allwinner's
// Crypto Engine registers cbc-aes-sun8i-ce.
var hardwareDriverPrefixes = []string{"sun8i-ce", "sun8i_ce"}

// IsCPUDriver reports whether a /proc/crypto driver name is one of the kernel's CPU implementations rather than a
// device's: by the last word of the name (cpuDriverSuffixes), after unwrapping an internal "__" prefix; a
// template instance (cbc(aes-generic), cryptd(__cbc-aes-neonbs), gcm_base(ctr(aes-ce),ghash-ce)) is a CPU one
// when everything it wraps is. The name alone is what a mode carries into the report, so this is the test there.
func IsCPUDriver(driver string) bool {
	d := strings.TrimPrefix(driver, "__")
	if open := strings.IndexByte(d, '('); open > 0 && strings.HasSuffix(d, ")") {
		inner := splitTopLevel(d[open+1 : len(d)-1])
		for _, in := range inner {
			if !IsCPUDriver(in) {
				return false
			}
		}
		return len(inner) > 0
	}
	for _, p := range hardwareDriverPrefixes {
		if strings.Contains(d, p) {
			return false
		}
	}
	i := strings.LastIndexAny(d, "-_")
	if i < 0 {
		return false
	}
	return cpuDriverSuffixes[d[i+1:]]
}

// IsOffload reports whether a /proc/crypto entry is an offload driver, a device that does the work while the CPU
// waits for a completion: asynchronous ("async : yes"), bindable (not internal), self-test not failed, and not a
// CPU implementation by name (IsCPUDriver). Both tests are needed: the kernel wraps some CPU implementations in
// async shells (arm's cbc-aes-neonbs, x86's cbc-aes-aesni, cryptd(...)), and the name alone cannot tell a
// device from a CPU routine the suffix list does not know. Every hardware driver of the ARM boards fleet meets
// (sa2ul, caam, dcp, rk, omap, virtio_crypto) is async.
func IsOffload(a CryptoAlg) bool {
	if !a.Async || a.Internal || a.Driver == "" || (a.Selftest != "" && a.Selftest != "passed") {
		return false
	}
	return !IsCPUDriver(a.Driver)
}

// OffloadDrivers lists, in /proc/crypto order and once each, the offload drivers (IsOffload) of the kernel
// algorithms the kcapi benchmark can drive through a socket of a known kind (skcipher, aead, hash).
func OffloadDrivers(algs []CryptoAlg) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range algs {
		if !IsOffload(a) || seen[a.Driver] || !kcapiBindable(a.Type) {
			continue
		}
		seen[a.Driver] = true
		out = append(out, a.Driver)
	}
	return out
}

// kcapiBindable reports whether an entry of type t can serve one of the AF_ALG socket kinds the benchmark uses
// ("" is an entry without a type line: unknown, so not excluded).
func kcapiBindable(t string) bool {
	if t == "" {
		return true
	}
	for _, types := range procCryptoTypes {
		if containsString(types, t) {
			return true
		}
	}
	return false
}

// Implementations lists the /proc/crypto entries that can serve kernel algorithm name through a socket of kind,
// one per driver, highest priority first: every implementation kcapi:all measures, those whose self-test did not
// pass included (the caller skips them with the reason). Internal entries are left out: AF_ALG cannot bind them.
func Implementations(algs []CryptoAlg, name, kind string) []CryptoAlg {
	var out []CryptoAlg
	seen := map[string]bool{}
	for _, a := range algs {
		if a.Name != name || a.Driver == "" || a.Internal || seen[a.Driver] {
			continue
		}
		if kind != "" && a.Type != "" && !containsString(procCryptoTypes[kind], a.Type) {
			continue
		}
		seen[a.Driver] = true
		out = append(out, a)
	}
	for i := 1; i < len(out); i++ { // insertion sort: stable, and the lists are short
		for j := i; j > 0 && out[j].Priority > out[j-1].Priority; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// splitTopLevel splits s at the commas outside parentheses: "ctr(aes-ce),ghash-ce" → ctr(aes-ce), ghash-ce.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// PlanMode is the mode of plan modes that asked for a point or skip of mode: mode itself, or kcapi:all for a
// kcapi:DRIVER the plan does not name. ok is false when the plan asked for no such thing.
func PlanMode(modes []string, mode string) (string, bool) {
	if containsString(modes, mode) {
		return mode, true
	}
	if _, ok := KCAPIDriver(mode); ok && containsString(modes, KCAPIAll) {
		return KCAPIAll, true
	}
	return "", false
}
