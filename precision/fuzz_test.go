package precision

import (
	"math"
	"testing"
)

// FuzzParseFlags: flags come back from the store, where imports and older agents put whatever they had; a
// target read from them is always one Check accepts, and Flag's own output reads back as written.
func FuzzParseFlags(f *testing.F) {
	f.Add("precision-target: ±2 % within 20 repeats", 2.0, int64(20))
	f.Add("precision-target: ±1e308 % within -1 repeats", 0.5, int64(6))
	f.Add("default-3s: openssl 1.0 has no -seconds", 99.9, int64(1000))
	f.Fuzz(func(t *testing.T, flag string, pct float64, maxRepeat int64) {
		if tg, ok := ParseFlags([]string{flag}); ok && Check(tg.Pct) != nil {
			t.Errorf("ParseFlags(%q) = %+v: a target Check refuses", flag, tg)
		}
		if Check(pct) != nil || maxRepeat < 0 || maxRepeat > math.MaxInt32 {
			return
		}
		if tg, ok := ParseFlags([]string{Flag(pct, int(maxRepeat))}); !ok || tg.Pct != pct || int64(tg.MaxRepeat) != maxRepeat {
			t.Errorf("Flag(%v, %d) read back as %+v, %v", pct, maxRepeat, tg, ok)
		}
	})
}

// FuzzParse: --precision takes what a user types; whatever it accepts is a target Check accepts.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2", "0.5%", " 1 % ", "NaN", "1e-400", "-0", "100%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := Parse(s); err == nil && Check(v) != nil {
			t.Errorf("Parse(%q) = %v, which Check refuses", s, v)
		}
	})
}
