package protocol

import (
	"sort"
	"strings"
)

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

// CryptoModules picks the crypto-related names of mods (Facts.Modules), sorted and without repeats; nil when
// mods is nil (no /proc/modules), empty when none of them is crypto-related.
func CryptoModules(mods []string, algs []CryptoAlg) []string {
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
