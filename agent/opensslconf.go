package agent

import "strings"

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
