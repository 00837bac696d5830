package validity

import "strings"

// Cause is the kind of a reason Judge gives, in a few words, for a headline that counts points by why they
// were judged ("24 of 24 points invalid: background CPU"): the reason without its figures. A reason Judge
// does not write (from an older controller) is cut before its first digit, colon or parenthesis.
func Cause(reason string) string {
	r := strings.TrimSpace(reason)
	for _, c := range []struct{ prefix, cause string }{
		{"background CPU", "background CPU"},
		{"mean background CPU", "background CPU"},
		{"steal", "steal time"},
		{"had the CPU", "CPU share"},
		{"throttled", "throttled"},
		{"governor powersave", "governor powersave"},
		{"scaling_max_freq", "clock capped"},
		{"swapping", "swapping"},
	} {
		if strings.HasPrefix(r, c.prefix) {
			return c.cause
		}
	}
	switch {
	case strings.Contains(r, "°C"):
		return "temperature"
	case strings.HasPrefix(r, "CPUs ") && strings.HasSuffix(r, " offline"):
		return "CPUs offline"
	}
	if i := strings.IndexAny(r, "0123456789:("); i >= 0 {
		r = strings.TrimSpace(r[:i])
	}
	if r == "" {
		return "other"
	}
	return r
}

// Causes are the distinct causes of reasons, in the order they first appear.
func Causes(reasons []string) []string {
	var out []string
	for _, r := range reasons {
		c := Cause(r)
		seen := false
		for _, o := range out {
			seen = seen || o == c
		}
		if !seen {
			out = append(out, c)
		}
	}
	return out
}
