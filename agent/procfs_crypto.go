package agent

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseProcCrypto parses /proc/crypto: one CryptoAlg per entry (entries are separated by blank lines or start at
// a "name" line). Fields it does not know are ignored; a missing priority is 0.
func ParseProcCrypto(r io.Reader) ([]CryptoAlg, error) {
	var algs []CryptoAlg
	var cur *CryptoAlg
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
			algs = append(algs, CryptoAlg{Name: val})
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

// procCryptoTypes lists the /proc/crypto types an AF_ALG socket type can be served by.
var procCryptoTypes = map[string][]string{
	"skcipher": {"skcipher", "lskcipher", "ablkcipher", "blkcipher", "givcipher"},
	"aead":     {"aead", "nivaead"},
	"hash":     {"shash", "ahash"},
}

// bestCryptoDriver returns the driver the kernel picks for name and an AF_ALG socket of kind ("" for any kind),
// "" when none matches.
func bestCryptoDriver(algs []CryptoAlg, name, kind string) string {
	a, _ := pickCryptoAlg(algs, name, kind)
	return a.Driver
}

// pickCryptoAlg returns the entry the kernel picks for name: the highest priority entry of a type that can serve
// kind ("" for any kind), skipping entries whose self-test failed. ok is false when none matches.
func pickCryptoAlg(algs []CryptoAlg, name, kind string) (best CryptoAlg, ok bool) {
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
	return pickCryptoAlg(f.ProcCrypto, name, "")
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
