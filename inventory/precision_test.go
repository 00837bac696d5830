package inventory

import (
	"testing"
	"time"
)

func TestBuiltinNightlyProfile(t *testing.T) {
	p, err := Default().Profile(NightlyProfile)
	if err != nil {
		t.Fatal(err)
	}
	if p.PrecisionPct != 2 || p.MaxRepeat != 20 || p.Budget != time.Hour || p.Seconds != 1 || p.MaxRepeats() != 20 {
		t.Errorf("nightly = %+v, want ±2 %% within 20 repeats, 1 h a board, 1 s a point", p)
	}
	if full, _ := Default().Profile(FullProfile); len(p.Algorithms) != len(full.Algorithms) {
		t.Errorf("nightly measures %v, want full's algorithms %v", p.Algorithms, full.Algorithms)
	}
	if err := ValidateProfile(p); err != nil {
		t.Error(err)
	}
}

func TestProfilePrecisionKeys(t *testing.T) {
	inv, err := parseTest(t, "boards.toml", "[profiles.p]\nalgorithms = [\"sha256\"]\nprecision = 1.5\nmax_repeat = 12\nbudget = \"10m\"\n"+
		"[profiles.q]\nalgorithms = [\"sha256\"]\nprecision = 3\n")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := inv.Profile("p")
	if p.PrecisionPct != 1.5 || p.MaxRepeat != 12 || p.Budget != 10*time.Minute || p.MaxRepeats() != 12 {
		t.Errorf("profile p = %+v", p)
	}
	q, _ := inv.Profile("q")
	if q.MaxRepeats() != 20 || q.Budget != 0 {
		t.Errorf("profile q = %+v: max_repeat defaults to 20, no budget", q)
	}
}

func TestProfilePrecisionRefused(t *testing.T) {
	const head = "[profiles.p]\nalgorithms = [\"sha256\"]\n" // keys of the cases start on line 3
	for _, tc := range []struct{ name, doc, want string }{
		{"zero", head + "precision = 0\n",
			`boards.toml:3:13: profile "p": precision 0 % is out of range (expected a percentage above 0 and below 100, such as 2 or 0.5%)`},
		{"hundred", head + "precision = 100\n",
			`boards.toml:3:13: profile "p": precision 100 % is out of range (expected a percentage above 0 and below 100, such as 2 or 0.5%)`},
		{"nan", head + "precision = nan\n",
			`boards.toml:3:13: profile "p": precision NaN % is out of range (expected a percentage above 0 and below 100, such as 2 or 0.5%)`},
		{"string", head + "precision = \"2%\"\n",
			`boards.toml:3:13: profile "p": precision: expected a number (percent, such as 2 for ±2 %), got a string`},
		{"with repeats", head + "precision = 2\nrepeats = 5\n",
			`boards.toml:4:11: profile "p": repeats and precision exclude each other (with precision, max_repeat caps the repeats)`},
		{"max_repeat below six", head + "precision = 2\nmax_repeat = 5\n",
			`boards.toml:4:14: profile "p": max repeat 5 is out of range (expected 6 to 1000: fewer than 6 repeats have no 95 % interval of the median)`},
		{"max_repeat alone", head + "max_repeat = 10\n",
			`boards.toml:3:14: profile "p": max_repeat needs precision (it caps adaptive repeats; without precision, set repeats)`},
		{"budget zero", head + "budget = \"0s\"\n",
			`boards.toml:3:10: profile "p": budget 0s is out of range (expected 1s to 24h0m0s per board, such as 10m)`},
		{"budget not a duration", head + "budget = \"soon\"\n",
			`boards.toml:3:10: profile "p": budget "soon" is not a duration (expected such as "10m" or "1h")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseTest(t, "boards.toml", tc.doc)
			if got := errString(err); got != tc.want {
				t.Errorf("error\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestValidateProfileAdaptive(t *testing.T) {
	ok := Profile{Name: "p", Algorithms: []string{"sha256"}, Sizes: []int{16}, Seconds: 1, Threads: 1, Repeats: 1}
	for _, tc := range []struct {
		name   string
		change func(p *Profile)
		want   string
	}{
		{"precision", func(p *Profile) { p.PrecisionPct, p.MaxRepeat, p.Budget = 1, 6, time.Second }, "<nil>"},
		{"precision out of range", func(p *Profile) { p.PrecisionPct = -1 },
			`profile "p": precision -1 % is out of range (expected a percentage above 0 and below 100, such as 2 or 0.5%)`},
		{"max repeat without precision", func(p *Profile) { p.MaxRepeat = 10 }, `profile "p": max repeat needs a precision (it caps adaptive repeats)`},
		{"budget", func(p *Profile) { p.Budget = 25 * time.Hour }, `profile "p": budget 25h0m0s is out of range (expected 1s to 24h0m0s per board, such as 10m)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			tc.change(&p)
			if got := errString(ValidateProfile(p)); got != tc.want {
				t.Errorf("error\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
