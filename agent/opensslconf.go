package agent

import (
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// opensslConf is an openssl.cnf read as sections of key = value pairs, in file order; "" is the default
// section (before the first header). A key given twice keeps both pairs, as the file has them.
type opensslConf map[string][]confPair

type confPair struct{ Key, Value string }

// value is the last value of key in section, "" when absent.
func (c opensslConf) value(section, key string) string {
	v := ""
	for _, kv := range c[section] {
		if kv.Key == key {
			v = kv.Value
		}
	}
	return v
}

// maxConfSections bounds what a hostile or broken configuration costs the probe.
const maxConfSections, maxConfPairs = 1000, 10000

// parseOpenSSLConf reads the parts of OpenSSL's configuration syntax that name engines and providers: "#"
// comments, "[ section ]" headers, "key = value" lines with optional quotes, and a trailing backslash that
// continues a line. Variable expansion ($var) is not done: the text is digested as written, which is what a
// change of the file changes. Lines that are none of these (directives such as .include) are skipped.
func parseOpenSSLConf(text string) opensslConf {
	c := opensslConf{"": nil}
	section, pairs := "", 0
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + lines[i]
		}
		l, _, _ = strings.Cut(l, "#") // a "#" inside quotes is cut too: no engine or provider setting has one
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "[") {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				continue
			}
			section = strings.TrimSpace(l[1:end])
			if _, ok := c[section]; !ok {
				if len(c) >= maxConfSections {
					return c
				}
				c[section] = nil
			}
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.HasPrefix(k, ".") {
			continue
		}
		if pairs++; pairs > maxConfPairs {
			return c
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		c[section] = append(c[section], confPair{k, v})
	}
	return c
}

// builtinProviders are OpenSSL 3's own providers: one of them activated serves the CPU's code.
var builtinProviders = map[string]bool{"default": true, "base": true, "fips": true, "legacy": true, "null": true}

// maxConfRoutes bounds the list a hostile configuration can make.
const maxConfRoutes = 16

// confRoutes lists what in the configuration hands openssl runs without -engine (fleet's cpu and soft modes)
// to something other than OpenSSL's own code, each as "where: what", in file order:
//   - an engine it loads with default_algorithms (ENGINE_set_default_string: that engine serves the classes named,
//     ALL, CIPHERS, DIGESTS, RSA, EC…, for every EVP call that names no engine);
//   - the devcrypto engine with any of its controls set (USE_SOFTDRIVERS, CIPHERS, DIGESTS): each of them
//     re-registers the engine's algorithms, and OpenSSL then picks a registered engine for every run;
//   - an activated provider other than OpenSSL's own (default, base, fips, legacy, null), which a fetch without
//     a property query may take, and a default_properties that asks for a provider other than default or fips.
//
// An .include is not followed and $var is not expanded (as for confDigest). nil when nothing routes.
func confRoutes(c opensslConf) []string {
	init := c.value("", "openssl_conf")
	if init == "" || c[init] == nil {
		return nil
	}
	var out []string
	add := func(s string) {
		if len(out) < maxConfRoutes {
			out = append(out, s)
		}
	}
	if list := c.value(init, "engines"); list != "" {
		for _, kv := range c[list] {
			id := kv.Key
			if e := c.value(kv.Value, "engine_id"); e != "" {
				id = e
			}
			if v := c.value(kv.Value, "default_algorithms"); v != "" {
				add(fmt.Sprintf("engine %s [%s]: default_algorithms = %s", id, kv.Value, v))
			}
			if id == "devcrypto" {
				for _, key := range []string{"USE_SOFTDRIVERS", "CIPHERS", "DIGESTS"} {
					if v := c.value(kv.Value, key); v != "" {
						add(fmt.Sprintf("engine devcrypto [%s]: %s = %s registers its algorithms", kv.Value, key, v))
					}
				}
			}
		}
	}
	if list := c.value(init, "providers"); list != "" {
		for _, kv := range c[list] {
			name := kv.Key
			if n := c.value(kv.Value, "identity"); n != "" {
				name = n
			}
			if builtinProviders[strings.ToLower(name)] || !confTrue(c.value(kv.Value, "activate")) {
				continue
			}
			add(fmt.Sprintf("provider %s [%s]: activate = %s", name, kv.Value, c.value(kv.Value, "activate")))
		}
	}
	if alg := c.value(init, "alg_section"); alg != "" {
		if v := c.value(alg, "default_properties"); v != "" {
			for _, m := range providerPropRE.FindAllStringSubmatch(v, -1) {
				if p := strings.ToLower(m[1]); p != "default" && p != "fips" {
					add(fmt.Sprintf("default_properties [%s] = %s", alg, v))
					break
				}
			}
		}
	}
	return out
}

// providerPropRE finds a provider=NAME (or ?provider=NAME) clause of a property query.
var providerPropRE = protocol.MustPattern(`(?i)(?:^|,)\s*\??\s*provider\s*=\s*"?([A-Za-z0-9_.-]+)`)

// confTrue is a configuration boolean as OpenSSL 3 reads activate: 1, yes, true, on (any case); OpenSSL 3.0
// activated a provider for any value, which the later releases' spellings of "no" are not.
func confTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "no", "false", "off", "n":
		return false
	}
	return true
}

// routedFlag is the flag of a point of a mode without an engine (cpu, soft) whose algorithm the board's
// configuration may hand to an engine or provider: "" when none of routes concerns alg. Public-key and rand
// rows are concerned by ALL and by their class, ciphers by CIPHERS, digests by DIGESTS; providers and devcrypto's
// registration by any algorithm.
func routedFlag(conf string, routes []string, alg string) string {
	var hit []string
	for _, r := range routes {
		if routeConcerns(r, alg) {
			hit = append(hit, r)
		}
	}
	if len(hit) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s: openssl without -engine may run %s there, not on the CPU", conf, strings.Join(hit, "; "), alg)
}

// routeConcerns says whether a confRoutes entry can reach alg.
func routeConcerns(route, alg string) bool {
	_, v, ok := strings.Cut(route, "default_algorithms = ")
	if !ok {
		return true
	}
	class := "CIPHERS"
	switch k := algKind(alg); k {
	case "digest":
		class = "DIGESTS"
	case "rsa":
		class = "RSA"
	case "ec":
		class = "EC"
	case "other":
		class = "PKEY"
	}
	for _, f := range strings.FieldsFunc(strings.ToUpper(v), func(r rune) bool { return r == ',' || r == ' ' || r == ':' }) {
		switch {
		case f == "ALL", f == class, class == "RSA" && strings.HasPrefix(f, "PKEY"), class == "EC" && (f == "ECDSA" || f == "ECDH" || strings.HasPrefix(f, "PKEY")),
			class == "PKEY" && strings.HasPrefix(f, "PKEY"):
			return true
		}
	}
	return false
}

// algKind is the class of a canonical algorithm name as default_algorithms names classes: "cipher", "digest",
// "rsa", "ec" or "other" (dsa, ffdh, rand).
func algKind(alg string) string {
	a := strings.ToLower(alg)
	switch {
	case isSweepCipher(a):
		return "cipher"
	case strings.HasPrefix(a, "rsa"):
		return "rsa"
	case strings.HasPrefix(a, "ecd"), strings.HasPrefix(a, "ed25519"), strings.HasPrefix(a, "ed448"),
		strings.HasPrefix(a, "x25519"), strings.HasPrefix(a, "x448"), strings.HasPrefix(a, "sm2"):
		return "ec"
	case strings.HasPrefix(a, "dsa"), strings.HasPrefix(a, "ffdh"), strings.HasPrefix(a, "rand"):
		return "other"
	}
	return "digest"
}
