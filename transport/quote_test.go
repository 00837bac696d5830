package transport

import (
	"os/exec"
	"strings"
	"testing"
)

// words a shell would otherwise split, expand, glob or run
var hostileWords = []string{
	"", " ", "plain", "a b", "semi;colon", "$(touch /tmp/pwned)", "`id`", "$HOME", "${HOME}", "'", "''", `"`,
	`it's "quoted"`, "back\\slash", "new\nline", "tab\there", "*", "~", "-n", "--", "&&", "|", ">x", "#comment",
	"!bang", "\x01\x7f", "ünïcødé", "'\\''",
}

// shPrintf is what /bin/sh (dash on Debian, like many boards' shells) makes of printf %s with word.
func shPrintf(t *testing.T, word string) string {
	t.Helper()
	out, err := exec.Command("/bin/sh", "-c", "printf %s "+word).Output()
	if err != nil {
		t.Fatalf("sh -c 'printf %%s %s': %v", word, err)
	}
	return string(out)
}

// TestQuoteRoundTrip: every hostile word comes back from the shell as it was, one word.
func TestQuoteRoundTrip(t *testing.T) {
	for _, w := range hostileWords {
		if got := shPrintf(t, Quote(w)); got != w {
			t.Errorf("sh printf %%s %s = %q, want %q", Quote(w), got, w)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, w := range hostileWords {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) {
			return // no argument vector can carry a NUL
		}
		if got := shPrintf(t, Quote(s)); got != s {
			t.Errorf("sh printf %%s %s = %q, want %q", Quote(s), got, s)
		}
	})
}
