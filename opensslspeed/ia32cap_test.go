package opensslspeed

import (
	"errors"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

// TestIA32CapSoft is the known truth of which masks are mode soft: those that turn off at least AES-NI,
// PCLMULQDQ, SHA, VAES and VPCLMULQDQ, read as OpenSSL's cpuid.c reads them.
func TestIA32CapSoft(t *testing.T) {
	all := []string(nil)
	for _, tc := range []struct {
		value  string
		leftOn []string // nil: soft
	}{
		{"0", all},                  // first word 0, the second never given: zeroed
		{"0x0:0x0", all},            // both set to 0
		{IA32CapSoftMask, all},      // fleet's own
		{"~0x200000200000000", all}, // the second word is zeroed when none is given
		{"0x0:", all},               // an empty last word is zeroed
		{"", all},                   // an empty value sets the first word to 0
		{"~0xffffffffffffffff:~0xffffffffffffffff", all},
		{"0:~0", all}, // a plain first word skips CPUID: the second starts from 0
		{"~0", []string{"AES-NI", "PCLMULQDQ"}},
		{":~0x20000000", []string{"AES-NI", "PCLMULQDQ", "VAES", "VPCLMULQDQ"}}, // SHA-NI off, nothing else
		{"~0x200000000000000", []string{"PCLMULQDQ"}},                           // AES-NI (bit 57) off, PCLMULQDQ kept
		{"~0x200000200000000:~0x0", []string{"SHA", "VAES", "VPCLMULQDQ"}},
		{"~0x200000200000000::0", []string{"SHA", "VAES", "VPCLMULQDQ"}}, // an empty middle word: kept (3.4 skips it)
		{"0xffffffffffffffff:0xffffffffffffffff", []string{"AES-NI", "PCLMULQDQ", "SHA", "VAES", "VPCLMULQDQ"}},
		{"010000000000000000000", []string{"AES-NI"}}, // octal: the first word set to bit 57 alone
	} {
		m, err := ParseIA32Cap(tc.value)
		if err != nil {
			t.Errorf("ParseIA32Cap(%q): %v", tc.value, err)
			continue
		}
		if got := m.LeftOn(); !slices.Equal(got, tc.leftOn) {
			t.Errorf("ParseIA32Cap(%q).LeftOn() = %q, want %q", tc.value, got, tc.leftOn)
		}
		if got, want := m.Soft(), tc.leftOn == nil; got != want {
			t.Errorf("ParseIA32Cap(%q).Soft() = %v, want %v", tc.value, got, want)
		}
	}
}

func TestParseIA32CapRefuses(t *testing.T) {
	for _, v := range []string{"~0xzz", "~0x2zz", "garbage", "0x", "~", "-1", "+5", "0x1_0", " 0x1", "0x1 ", "08",
		"0x10000000000000000", "18446744073709551616", "0:0:0:0:0:0", "~~0x1", "0x1:~0xg", "\x1b[31m"} {
		_, err := ParseIA32Cap(v)
		if !errors.Is(err, ErrIA32Cap) {
			t.Errorf("ParseIA32Cap(%q) = %v, want ErrIA32Cap", v, err)
		}
		if err != nil && strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("ParseIA32Cap(%q): the message carries the escape: %q", v, err)
		}
	}
	if _, err := ParseIA32Cap("0:0:0:0:0"); err != nil {
		t.Errorf("five words (3.4's LV0 to LV4): %v", err)
	}
}

// TestIA32CapSoftMaskBits: the bits named in the soft rule are exactly those the agent's mask clears.
func TestIA32CapSoftMaskBits(t *testing.T) {
	m, err := ParseIA32Cap(IA32CapSoftMask)
	if err != nil {
		t.Fatal(err)
	}
	var cleared []int // word*64+bit
	for i, w := range m.words {
		if w.kind != '~' {
			t.Fatalf("word %d of %q is not a ~ word", i, IA32CapSoftMask)
		}
		for v := w.value; v != 0; v &= v - 1 {
			cleared = append(cleared, i*64+bits.TrailingZeros64(v))
		}
	}
	var named []int
	for _, b := range ia32capSoftBits {
		named = append(named, b.word*64+b.bit)
	}
	slices.Sort(cleared)
	slices.Sort(named)
	if !slices.Equal(cleared, named) {
		t.Errorf("%s clears bits %v, the soft rule names %v", IA32CapSoftMask, cleared, named)
	}
}

// TestParseIA32CapInCapture: a mask no OpenSSL reads as written is a Problem at its line, on the command line or
// in CPUINFO's env:, and a partial one leaves the run cpu with the mask as its environment and a note.
func TestParseIA32CapInCapture(t *testing.T) {
	body := "Doing sha256 for 3s on 16 size blocks: 1000000 sha256's in 3.00s\nversion: 3.0.13\n%s" +
		"The 'numbers' are in 1000s of bytes per second processed.\ntype             16 bytes\nsha256            5333.33k\n"
	for _, tc := range []struct {
		name, text string
		line       int
	}{
		{"command line", "$ OPENSSL_ia32cap=~0x2zz openssl speed sha256\n" + strings.Replace(body, "%s", "", 1), 1},
		{"CPUINFO env", "$ openssl speed sha256\n" + strings.Replace(body, "%s",
			"CPUINFO: OPENSSL_ia32cap=0xfff83203078bffff:0x209c01ab env:~0x2zz\n", 1), 4},
	} {
		runs, err := Parse(tc.text, Hint{})
		if err != nil || len(runs) != 1 {
			t.Fatalf("%s: %d runs, %v", tc.name, len(runs), err)
		}
		if p := runs[0].Problems; len(p) == 0 || p[0].Line != tc.line || !strings.Contains(p[0].Text, `"~0x2zz"`) {
			t.Errorf("%s: problems %v, want one at line %d naming the value", tc.name, p, tc.line)
		}
	}
	runs, err := Parse("$ OPENSSL_ia32cap=':~0x20000000' openssl speed sha256\n"+strings.Replace(body, "%s",
		"CPUINFO: OPENSSL_ia32cap=0xfff83203078bffff:0x9c01ab env::~0x20000000\n", 1), Hint{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("partial: %d runs, %v", len(runs), err)
	}
	r := runs[0]
	if r.Mode != "cpu" || r.Env["OPENSSL_ia32cap"] != ":~0x20000000" || len(r.Problems) > 0 {
		t.Errorf("partial mask: mode %q env %v problems %v, want cpu with the mask", r.Mode, r.Env, r.Problems)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "partial mask, not soft: it leaves AES-NI") }) {
		t.Errorf("partial mask: warnings %q lack the note", r.Warnings)
	}
}

func FuzzParseIA32Cap(f *testing.F) {
	for _, s := range []string{"0", "~0", IA32CapSoftMask, ":~0x20000000", "0x0:0x0", "~0x2zz", "0:0:0:0:0:0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseIA32Cap(s)
		if err != nil {
			return
		}
		if strings.Trim(s, "0123456789abcdefABCDEFxX~:") != "" {
			t.Fatalf("accepted %q, which has characters no mask has", s)
		}
		_ = m.LeftOn()
	})
}
