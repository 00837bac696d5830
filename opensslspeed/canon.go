package opensslspeed

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// CanonicalAlgorithm maps any spelling OpenSSL uses for an algorithm to the canonical lower-case hyphenated
// name stored with a point: "aes-256 cbc", "AES-256-CBC" and "aes-256-cbc" all become "aes-256-cbc";
// "SHA256" and "SHA2-256" become "sha256"; "hmac(md5)" becomes "hmac-md5". Asymmetric names lose their size
// and curve, which live in their own fields: "rsa2048" → "rsa", "ecdsap256" → "ecdsa", "ed25519" → "eddsa".
func CanonicalAlgorithm(name string) string {
	n := strings.Join(strings.Fields(strings.ToLower(name)), " ")
	if n == "" {
		return ""
	}
	if a, ok := canonAsymName(n); ok {
		return a.alg
	}
	for _, mac := range []string{"hmac", "cmac"} {
		if strings.HasPrefix(n, mac+"(") && strings.HasSuffix(n, ")") {
			inner := n[len(mac)+1 : len(n)-1]
			if inner == "" {
				return mac
			}
			return mac + "-" + CanonicalAlgorithm(inner)
		}
	}
	n = strings.NewReplacer(" ", "-", "_", "-").Replace(n)
	if c, ok := canonAliases[n]; ok {
		return c
	}
	if m := canonIDAESRE.FindStringSubmatch(n); m != nil {
		return "aes-" + m[1] + "-" + m[2]
	}
	return n
}

// canonAliases maps the names of `openssl speed`'s own (non-EVP) rows and common EVP aliases to the EVP name.
var canonAliases = map[string]string{
	"des-ede3":      "des-ede3-cbc",
	"blowfish-cbc":  "bf-cbc",
	"blowfish":      "bf-cbc",
	"bf":            "bf-cbc",
	"cast-cbc":      "cast5-cbc",
	"cast":          "cast5-cbc",
	"cast5":         "cast5-cbc",
	"rc5-32/12-cbc": "rc5-cbc",
	"rc5":           "rc5-cbc",
	"rc2":           "rc2-cbc",
	"idea":          "idea-cbc",
	"seed":          "seed-cbc",
	"des":           "des-cbc",
	"rmd160":        "ripemd160",
	"ripemd":        "ripemd160",
	"ripemd-160":    "ripemd160",
	"aes128":        "aes-128-cbc",
	"aes192":        "aes-192-cbc",
	"aes256":        "aes-256-cbc",
	"sha-1":         "sha1",
	"sha2-224":      "sha224",
	"sha2-256":      "sha256",
	"sha2-384":      "sha384",
	"sha2-512":      "sha512",
	"sha-224":       "sha224",
	"sha-256":       "sha256",
	"sha-384":       "sha384",
	"sha-512":       "sha512",
	"sha2-512/224":  "sha512-224",
	"sha2-512/256":  "sha512-256",
	"sha512/224":    "sha512-224",
	"sha512/256":    "sha512-256",
	"hmac":          "hmac-md5", // `openssl speed hmac` before 3.0 is HMAC-MD5
}

var canonIDAESRE = protocol.MustPattern(`^id-aes(128|192|256)-([a-z0-9]+)$`)

// speedAsym is an asymmetric algorithm named the way `openssl speed` takes it on its command line.
type speedAsym struct {
	alg   string // rsa, dsa, ecdsa, ecdh, eddsa, sm2, ffdh
	bits  int    // 0 when the name does not say
	curve string // canonical curve, "" when the name does not say
}

var (
	canonRSARE   = protocol.MustPattern(`^(rsa|dsa|ffdh)(\d+)$`)
	canonECRE    = protocol.MustPattern(`^(ecdsa|ecdh)([pkb])(\d+)$`)
	canonECBPRE  = protocol.MustPattern(`^(ecdsa|ecdh)brp(\d+)([rt])1$`)
	canonECXRE   = protocol.MustPattern(`^ecdh(x25519|x448)$`)
	canonBareRE  = protocol.MustPattern(`^(rsa|dsa|ecdsa|ecdh|eddsa|sm2|ffdh)$`)
	canonEdRE    = protocol.MustPattern(`^(ed25519|ed448)$`)
	canonPQRE    = protocol.MustPattern(`^(ml-kem|ml-dsa|slh-dsa)-[a-z0-9-]+$`)
	speedArgRE   = protocol.MustPattern(`^[a-z0-9][a-z0-9-]*$`)
	canonCurveEd = map[string]int{"ed25519": 253, "ed448": 456, "x25519": 253, "x448": 448}
)

// AsymName splits an asymmetric name `openssl speed` accepts into the stored algorithm, key bits and curve:
// "rsa2048" → ("rsa", 2048, ""), "ecdsap256" → ("ecdsa", 256, "nistp256"), "ed25519" → ("eddsa", 253,
// "ed25519"). ok is false for a name that is not one.
func AsymName(name string) (alg string, bits int, curve string, ok bool) {
	a, ok := canonAsymName(strings.Join(strings.Fields(name), ""))
	return a.alg, a.bits, a.curve, ok
}

// canonAsymName recognises the asymmetric names `openssl speed` accepts (rsa2048, ecdsap256, ed25519, ...).
func canonAsymName(n string) (speedAsym, bool) {
	n = strings.ToLower(n)
	if m := canonRSARE.FindStringSubmatch(n); m != nil {
		bits, _ := strconv.Atoi(m[2])
		return speedAsym{alg: m[1], bits: bits}, true
	}
	if m := canonECRE.FindStringSubmatch(n); m != nil {
		bits, _ := strconv.Atoi(m[3])
		curve := "nist" + m[2] + m[3]
		if curve == "nistp160" {
			curve = "secp160r1"
		}
		return speedAsym{alg: m[1], bits: bits, curve: curve}, true
	}
	if m := canonECBPRE.FindStringSubmatch(n); m != nil {
		bits, _ := strconv.Atoi(m[2])
		return speedAsym{alg: m[1], bits: bits, curve: "brainpoolp" + m[2] + m[3] + "1"}, true
	}
	if m := canonECXRE.FindStringSubmatch(n); m != nil {
		return speedAsym{alg: "ecdh", bits: canonCurveEd[m[1]], curve: m[1]}, true
	}
	if m := canonEdRE.FindStringSubmatch(n); m != nil {
		return speedAsym{alg: "eddsa", bits: canonCurveEd[m[1]], curve: m[1]}, true
	}
	if n == "curvesm2" {
		return speedAsym{alg: "sm2", bits: 256, curve: "sm2"}, true
	}
	if canonBareRE.MatchString(n) {
		return speedAsym{alg: n}, true
	}
	return speedAsym{}, false
}

// canonCurve is the stored spelling of a curve name printed by openssl ("Ed25519" → "ed25519",
// "CurveSM2" → "sm2", "brainpoolP256r1" → "brainpoolp256r1").
func canonCurve(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "curvesm2" {
		return "sm2"
	}
	return s
}

// Args maps a plan's algorithm name to the arguments of `openssl speed` that measure it, and says whether
// it is asymmetric (ops/s, no block sizes): "aes-128-cbc" → ["-evp" "aes-128-cbc"]; "sha256" → ["-evp" "sha256"];
// "hmac-sha256" → ["-hmac" "sha256"]; "rsa2048" → ["rsa2048"]; "ecdsap256" → ["ecdsap256"]; "ed25519" →
// ["ed25519"]. Names must be lower-case letters, digits and '-' so that nothing reaches openssl as an option.
func Args(alg string) (args []string, asym bool, err error) {
	if len(alg) > 64 || !speedArgRE.MatchString(alg) {
		return nil, false, fmt.Errorf("speed arguments for %q: an algorithm is 1-64 lower-case letters, digits and '-', starting with a letter or digit", alg)
	}
	if _, ok := canonAsymName(alg); ok {
		return []string{alg}, true, nil
	}
	if canonPQRE.MatchString(alg) {
		return []string{alg}, true, nil
	}
	for _, mac := range []string{"hmac", "cmac"} {
		if rest, ok := strings.CutPrefix(alg, mac+"-"); ok {
			if rest == "" {
				return nil, false, fmt.Errorf("speed arguments for %q: %s needs a digest or cipher name", alg, mac)
			}
			return []string{"-" + mac, rest}, false, nil
		}
	}
	return []string{"-evp", alg}, false, nil
}

// SymOp is the operation `openssl speed` records for a cipher, digest or MAC measured without -decrypt:
// "encrypt", "digest" or "mac".
func SymOp(alg string) string { return speedSymOp(alg, false) }

// speedSymOp is the operation of a cipher or digest row: digests and MACs have no direction.
func speedSymOp(alg string, decrypt bool) string {
	switch {
	case strings.HasPrefix(alg, "hmac") || strings.HasPrefix(alg, "cmac") || strings.HasPrefix(alg, "kmac") ||
		alg == "ghash" || alg == "poly1305":
		return "mac"
	case speedIsDigest(alg):
		return "digest"
	case alg == "rand":
		return "generate" // `openssl speed rand` (3.0+) measures the random generator: no direction
	case decrypt:
		return "decrypt"
	default:
		return "encrypt"
	}
}

func speedIsDigest(alg string) bool {
	for _, p := range []string{"md2", "md4", "md5", "mdc2", "sha", "ripemd", "rmd", "whirlpool", "sm3", "blake2", "shake", "keccak"} {
		if strings.HasPrefix(alg, p) {
			return true
		}
	}
	return false
}
