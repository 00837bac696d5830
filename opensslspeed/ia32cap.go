package opensslspeed

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// IA32CapSoftMask is the OPENSSL_ia32cap value of fleet's mode soft on x86: it clears AES-NI (CPUID.1:ECX bit 25,
// bit 57 of the first word) and PCLMULQDQ (bit 33), SHA (CPUID.7:EBX bit 29, bit 29 of the second word), and
// VAES and VPCLMULQDQ (CPUID.7:ECX bits 9 and 10, bits 41 and 42), so that AES, GHASH and SHA run in plain
// software. "~" clears the bits from what the CPU reports instead of replacing the whole vector. The agent sets
// it; a capture's own mask is soft only when it turns off at least these bits (IA32Cap.Soft).
const IA32CapSoftMask = "~0x200000200000000:~0x60020000000"

// ia32capSoftBits are the capabilities IA32CapSoftMask clears, by word and bit, with their names for a note.
// TestIA32CapSoftMaskBits keeps the two in step.
var ia32capSoftBits = []struct {
	word, bit int
	name      string
}{{0, 57, "AES-NI"}, {0, 33, "PCLMULQDQ"}, {1, 29, "SHA"}, {1, 41, "VAES"}, {1, 42, "VPCLMULQDQ"}}

// ia32capMaxWords is the most words OpenSSL reads (3.4 and later: LV0 to LV4; before, two).
const ia32capMaxWords = 5

// ErrIA32Cap is the cause of every refused OPENSSL_ia32cap value.
var ErrIA32Cap = errors.New("not an OPENSSL_ia32cap value")

// ia32capWord is one colon-separated word of an OPENSSL_ia32cap value: empty (keep what the CPU reports), "~V"
// (clear V's bits from it) or "V" (replace it by V).
type ia32capWord struct {
	kind  byte // 0: empty, '~': clear, '=': set
	value uint64
}

// IA32Cap is a parsed OPENSSL_ia32cap value, read as OpenSSL's crypto/cpuid.c reads it: up to five 64-bit words
// separated by ':'; a word "~V" clears V's bits from what CPUID reports, a word "V" replaces it, an empty first
// word keeps it; a word the value does not reach is zeroed (so "~V" alone also turns off every CPUID.7 feature:
// SHA, AVX2, VAES), and an empty value sets the first word to 0. A plain first word skips CPUID altogether, so the
// later words then start from 0. An empty middle word ("V::W") is skipped by 3.4 and zeroed by 3.0: it is taken
// as kept, the reading that turns off less.
type IA32Cap struct {
	words []ia32capWord
	raw   string
}

// ParseIA32Cap reads an OPENSSL_ia32cap value strictly: each word is empty or an optional "~" and a number as C
// writes it (0x hexadecimal, 0 octal, else decimal) that fits 64 bits. OpenSSL itself stops reading at the first
// character that is not a digit, so "~0x2zz" would silently mean "~0x2": such a value is refused (ErrIA32Cap),
// as are more than five words, signs, spaces and overflow.
func ParseIA32Cap(s string) (IA32Cap, error) {
	m := IA32Cap{raw: s}
	parts := strings.Split(s, ":")
	if len(parts) > ia32capMaxWords {
		return m, fmt.Errorf("%w: %s has %d words (OpenSSL reads at most %d, separated by ':')", ErrIA32Cap,
			quoteCut(s), len(parts), ia32capMaxWords)
	}
	for i, p := range parts {
		w := ia32capWord{}
		if p != "" {
			w.kind = '='
			if strings.HasPrefix(p, "~") {
				w.kind, p = '~', p[1:]
			}
			v, err := parseCNumber(p)
			if err != nil {
				return m, fmt.Errorf("%w: %s: word %d %v (expected ~ or nothing, then a number such as 0x200000200000000)",
					ErrIA32Cap, quoteCut(s), i+1, err)
			}
			w.value = v
		}
		m.words = append(m.words, w)
	}
	return m, nil
}

// parseCNumber reads an unsigned C literal as OpenSSL's ossl_strtouint64 does, but the whole of it.
func parseCNumber(s string) (uint64, error) {
	digits, base := s, 10
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		digits, base = s[2:], 16
	case len(s) > 1 && s[0] == '0':
		digits, base = s[1:], 8
	}
	if digits == "" {
		return 0, fmt.Errorf("has no digits")
	}
	v, err := strconv.ParseUint(digits, base, 64) // with a base, no sign, prefix or '_' is accepted
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("does not fit 64 bits")
		}
		return 0, fmt.Errorf("is not a base-%d number", base)
	}
	return v, nil
}

// Off reports whether bit (0–63) of word (0–4) is off after the mask, whatever the CPU reports.
func (m IA32Cap) Off(word, bit int) bool {
	mask := uint64(1) << uint(bit)
	if len(m.words) == 1 && m.words[0].kind == 0 && m.raw == "" {
		return true // an empty value: the first word set to 0, the rest zeroed
	}
	if word >= len(m.words) {
		return true
	}
	w := m.words[word]
	fromZero := word > 0 && m.words[0].kind == '=' // a plain first word: CPUID was never read
	switch w.kind {
	case '~':
		return w.value&mask != 0 || fromZero
	case '=':
		return w.value&mask == 0
	}
	// empty: the first word keeps the CPU's; a last word after a colon is zeroed; a middle one is kept
	return fromZero || word > 0 && word == len(m.words)-1
}

// Soft reports whether the mask turns off at least what IA32CapSoftMask does: then OpenSSL runs AES, GHASH and
// SHA in plain software, which is mode soft. LeftOn names what a partial mask leaves on.
func (m IA32Cap) Soft() bool { return len(m.LeftOn()) == 0 }

// LeftOn names the capabilities of IA32CapSoftMask that the mask does not turn off.
func (m IA32Cap) LeftOn() []string {
	var on []string
	for _, b := range ia32capSoftBits {
		if !m.Off(b.word, b.bit) {
			on = append(on, b.name)
		}
	}
	return on
}

// quoteCut quotes s for a message, cut at 80 bytes: a hostile value must not fill the screen.
func quoteCut(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + "…"
	}
	return strconv.Quote(s)
}
