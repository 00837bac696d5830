package opensslspeed

import (
	"slices"
	"strings"
	"sync"
)

// The symmetric algorithms fleet knows by their canonical names (CanonicalAlgorithm's): the EVP ciphers and
// digests of OpenSSL 1.0.2 to 3.x and of its forks' common additions (SM3, SM4), the kernel's names that modes
// kcapi and ssh store (ghash, crc32c, the SSH ciphers), and HMAC or CMAC of any of them. `openssl speed` can
// measure more (every cipher of a board's build), so an unknown name is worth a warning, not a refusal.
var (
	knownModes = map[string][]string{
		"aes-128": {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr", "gcm", "ccm", "ocb", "xts", "wrap", "wrap-pad", "siv",
			"cbc-hmac-sha1", "cbc-hmac-sha256", "gcm-siv"},
		"aes-192":      {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr", "gcm", "ccm", "ocb", "wrap", "wrap-pad", "siv", "gcm-siv"},
		"aes-256":      {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr", "gcm", "ccm", "ocb", "xts", "wrap", "wrap-pad", "siv", "cbc-hmac-sha1", "cbc-hmac-sha256", "gcm-siv"},
		"aria-128":     {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr", "gcm", "ccm"},
		"aria-192":     {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr", "gcm", "ccm"},
		"aria-256":     {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr", "gcm", "ccm"},
		"camellia-128": {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr"},
		"camellia-192": {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr"},
		"camellia-256": {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ctr"},
		"sm4":          {"ecb", "cbc", "cfb", "ofb", "ctr", "gcm", "ccm", "xts"},
		"des":          {"ecb", "cbc", "cfb", "cfb1", "cfb8", "ofb", "ede", "ede-cbc", "ede-ecb", "ede-cfb", "ede-ofb", "ede3", "ede3-cbc", "ede3-ecb", "ede3-cfb", "ede3-cfb1", "ede3-cfb8", "ede3-ofb"},
		"bf":           {"ecb", "cbc", "cfb", "ofb"},
		"cast5":        {"ecb", "cbc", "cfb", "ofb"},
		"idea":         {"ecb", "cbc", "cfb", "ofb"},
		"seed":         {"ecb", "cbc", "cfb", "ofb"},
		"rc2":          {"ecb", "cbc", "cfb", "ofb", "40-cbc", "64-cbc"},
		"rc5":          {"ecb", "cbc", "cfb", "ofb"},
	}
	knownPlain = []string{"desx-cbc", "rc4", "rc4-40", "rc4-hmac-md5", "chacha20", "chacha20-poly1305",
		"md2", "md4", "md5", "md5-sha1", "mdc2", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256",
		"sha3-224", "sha3-256", "sha3-384", "sha3-512", "shake128", "shake256", "keccak-224", "keccak-256", "keccak-384",
		"keccak-512", "blake2b512", "blake2s256", "sm3", "ripemd160", "whirlpool", "ghash", "poly1305", "siphash",
		"crc32c", "rand", "aes128-ctr", "aes192-ctr", "aes256-ctr", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
		"chacha20-poly1305@openssh.com", "3des-cbc", "aes128-cbc", "aes192-cbc", "aes256-cbc"}
)

// known is the set of knownModes and knownPlain, built on first use. It is a zero value filled by knownOnce, not
// a sync.OnceValue: a package variable set by a call at init keeps its function, and with it the tables, in
// every binary that imports the package (about 7 KB of the agent's, which never asks).
var known struct {
	once sync.Once
	set  map[string]bool
}

// knownOnce is the set of known names.
func knownOnce() map[string]bool {
	known.once.Do(func() {
		m := map[string]bool{}
		for prefix, modes := range knownModes {
			for _, mode := range modes {
				m[prefix+"-"+mode] = true
			}
		}
		for _, n := range knownPlain {
			m[n] = true
		}
		known.set = m
	})
	return known.set
}

// KnownAlgorithm says whether alg, a canonical name, is a symmetric algorithm fleet knows (see knownModes).
func KnownAlgorithm(alg string) bool {
	set := knownOnce()
	for _, mac := range []string{"hmac-", "cmac-"} {
		if inner, ok := strings.CutPrefix(alg, mac); ok {
			return set[inner]
		}
	}
	return set[alg] || alg == "hmac" || alg == "cmac"
}

// NearestAlgorithm is the known name nearest to alg (a canonical name fleet does not know), "" when none is
// near: at most a third of its length in edits (a swap of neighbours is one), the same letters without dashes
// first ("aes128cbc" is aes-128-cbc). HMAC and CMAC keep their prefix: hmac-sha265 is near hmac-sha256.
func NearestAlgorithm(alg string) string {
	prefix := ""
	for _, mac := range []string{"hmac-", "cmac-"} {
		if inner, ok := strings.CutPrefix(alg, mac); ok {
			prefix, alg = mac, inner
		}
	}
	squash := strings.NewReplacer("-", "", "_", "").Replace
	names := make([]string, 0, len(knownOnce()))
	for n := range knownOnce() {
		names = append(names, n)
	}
	slices.Sort(names) // the same answer every time between names as near
	best, bestD := "", len(alg)/3+1
	for _, n := range names {
		if squash(n) == squash(alg) {
			return prefix + n
		}
		if d := EditDistance(n, alg); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return prefix + best
}

// EditDistance is the edit distance between a and b counting a swap of neighbours as one edit (sha265 is one
// from sha256, two from sha224), in runes. It is fleet's only one: inventory's suggestions and the CLI's
// did-you-mean call it too. Kept rather than taken from a library (agnivade/levenshtein, xrash/smetrics):
// the agent imports this package and may import nothing beyond the standard library and x/sys, those
// libraries have no swap-of-neighbours variant, and 20 lines with a table test are as strict.
func EditDistance(as, bs string) int {
	a, b := []rune(as), []rune(bs)
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
