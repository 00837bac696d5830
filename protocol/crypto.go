package protocol

import "strings"

// procCryptoTypes lists the /proc/crypto types an AF_ALG socket type can be served by.
var procCryptoTypes = map[string][]string{
	"skcipher": {"skcipher", "lskcipher", "ablkcipher", "blkcipher", "givcipher"},
	"aead":     {"aead", "nivaead"},
	"hash":     {"shash", "ahash"},
}

// PickCryptoAlg returns the entry the kernel picks for name: the highest priority entry of a type that can serve
// kind ("" for any kind), skipping entries whose self-test failed. ok is false when none matches.
func PickCryptoAlg(algs []CryptoAlg, name, kind string) (best CryptoAlg, ok bool) {
	for _, a := range algs {
		if a.Name != name || a.Driver == "" {
			continue
		}
		if a.Selftest != "" && a.Selftest != "passed" {
			continue
		}
		if kind != "" && a.Type != "" && !containsString(procCryptoTypes[kind], a.Type) {
			continue
		}
		if !ok || a.Priority > best.Priority {
			best, ok = a, true
		}
	}
	return best, ok
}

// KernelDriver returns the /proc/crypto entry the kernel picks for the kernel algorithm name (cbc(aes), sha256):
// the highest priority one whose self-test did not fail. ok is false when the board has none, or f is nil.
func (f *Facts) KernelDriver(name string) (CryptoAlg, bool) {
	if f == nil {
		return CryptoAlg{}, false
	}
	return PickCryptoAlg(f.ProcCrypto, name, "")
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// KernelAlgorithm maps an OpenSSL algorithm name to its kernel crypto API name, as /proc/crypto lists it
// ("aes-128-cbc" → "cbc(aes)"), or "" when the kernel has no counterpart worth naming. The kcapi mode's own
// table (kcapiSpecs) agrees with it; a test checks that.
func KernelAlgorithm(alg string) string {
	a := strings.ToLower(alg)
	switch {
	case strings.HasPrefix(a, "aes-"):
		parts := strings.Split(a, "-")
		if len(parts) == 3 {
			return parts[2] + "(aes)"
		}
	case a == "des-ede3-cbc" || a == "des3":
		return "cbc(des3_ede)"
	case a == "chacha20-poly1305":
		return "rfc7539(chacha20,poly1305)"
	case a == "sm4-cbc":
		return "cbc(sm4)"
	}
	switch a {
	case "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
		"sm3", "chacha20", "ghash", "crc32c":
		return a
	}
	return ""
}
