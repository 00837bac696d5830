package inventory

import (
	"testing"
)

func TestValidityLimitsInBoardsToml(t *testing.T) {
	doc := `[boards.am64x]
host = "192.0.2.64"
validity = { background_peak_pct = 4, throttle_pct = 20 }

[profiles.strict]
algorithms = ["sha256"]
[profiles.strict.validity]
background_peak_pct = 1
background_avg_pct = 0.5
`
	inv, err := Parse("boards.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	b := inv.Boards()[0]
	p, err := inv.Profile("strict")
	if err != nil {
		t.Fatal(err)
	}
	o := ValidityFor(b, p)
	if *o.BackgroundPeakPct != 4 || *o.BackgroundAvgPct != 0.5 || *o.ThrottlePct != 20 {
		t.Errorf("limits of am64x under strict = peak %v avg %v throttle %v, want the board's 4 and 20 over the profile's 0.5",
			*o.BackgroundPeakPct, *o.BackgroundAvgPct, *o.ThrottlePct)
	}
	if pr := PrepareFor(b, p); pr.QuietWait != nil || pr.Governor != "" {
		t.Errorf("preparation without opting in = %+v, want none", pr)
	}
	q, _ := inv.Profile(QuickProfile)
	if o := ValidityFor(inv.Boards()[1], q); !o.IsZero() {
		t.Errorf("local under quick has limits %+v, want the defaults", o)
	}
}

func TestValidityLimitsRefused(t *testing.T) {
	const board = "[boards.b]\nhost = \"h\"\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"above 100", board + "validity = { background_peak_pct = 120 }\n",
			`boards.toml:3:36: board "b": validity.background_peak_pct 120 is out of range (expected a percentage from 0 to 100)`},
		{"negative in a profile", "[profiles.p]\nalgorithms = [\"sha256\"]\n[profiles.p.validity]\nthrottle_pct = -1\n",
			`boards.toml:4:16: profile "p": validity.throttle_pct -1 is out of range (expected a percentage from 0 to 100)`},
		{"nan", board + "[boards.b.validity]\nbackground_avg_pct = nan\n",
			`boards.toml:4:22: board "b": validity.background_avg_pct NaN is out of range (expected a percentage from 0 to 100)`},
		{"a string", board + "[boards.b.validity]\nthrottle_pct = \"5%\"\n",
			`boards.toml:4:16: board "b": validity.throttle_pct: expected a number, got a string`},
		{"unknown key", board + "[boards.b.validity]\nbackground_peak = 5\n",
			`boards.toml:4:1: board "b": unknown key "background_peak", did you mean "background_peak_pct"? (expected one of background_peak_pct, background_avg_pct, throttle_pct, quiet_wait, governor)`},
		{"quiet_wait not a duration", board + "validity = { quiet_wait = \"soon\" }\n",
			`boards.toml:3:27: board "b": validity.quiet wait "soon" is not a duration (expected such as "60s" or "2m")`},
		{"quiet_wait too long", board + "validity = { quiet_wait = \"2h\" }\n",
			`boards.toml:3:27: board "b": validity.quiet wait 2h0m0s is out of range (expected 0s, which does not wait, to 1h0m0s)`},
		{"quiet_wait a number", board + "validity = { quiet_wait = 60 }\n",
			`boards.toml:3:27: board "b": validity.quiet_wait: expected a string, got an integer`},
		{"governor with a slash", board + "validity = { governor = \"../x\" }\n",
			`boards.toml:3:25: board "b": validity.governor "../x" is invalid (expected a cpufreq governor name such as performance: lower-case letters, digits and _)`},
		{"average above peak", board + "validity = { background_peak_pct = 4, background_avg_pct = 8 }\n",
			`boards.toml:3:60: board "b": validity.background_avg_pct 8 is above validity.background_peak_pct 4 (expected an average limit at most the peak limit)`},
		{"average above peak in a profile", "[profiles.p]\nalgorithms = [\"sha256\"]\n[profiles.p.validity]\nbackground_peak_pct = 2\nbackground_avg_pct = 3\n",
			`boards.toml:5:22: profile "p": validity.background_avg_pct 3 is above validity.background_peak_pct 2 (expected an average limit at most the peak limit)`},
		{"board's average above a profile's peak", board + "validity = { background_avg_pct = 6 }\n[profiles.p]\nalgorithms = [\"sha256\"]\n[profiles.p.validity]\nbackground_peak_pct = 4\n",
			`boards.toml:3:35: board "b": validity.background_avg_pct 6 is above profile "p"'s validity.background_peak_pct 4 (boards.toml:7), which applies with it under that profile (expected an average limit at most the peak limit)`},
		{"board's peak below a profile's average", board + "validity = { background_peak_pct = 1 }\n[profiles.p]\nalgorithms = [\"sha256\"]\nvalidity = { background_avg_pct = 2.5 }\n",
			`boards.toml:3:36: board "b": validity.background_peak_pct 1 is below profile "p"'s validity.background_avg_pct 2.5 (boards.toml:6), which applies with it under that profile (expected an average limit at most the peak limit)`},
		{"average alone above every default peak", board + "validity = { background_avg_pct = 20 }\n",
			`boards.toml:3:35: board "b": validity.background_avg_pct 20 is above the default validity.background_peak_pct, at most 16 (16 %/cores) (expected an average limit at most the peak limit: set background_peak_pct too, or lower the average)`},
		{"1e400 and another mistake", board + "validity = { background_peak_pct = 1e400 }\n[boards.c]\nhost = 5\n",
			`boards.toml:3:36: board "b": validity.background_peak_pct: 1e400 is out of range for a number` + "\n" +
				`boards.toml:4:1: board "c": missing host (expected host = "NAME-OR-ADDRESS", or an alias from ~/.ssh/config)` + "\n" +
				`boards.toml:5:8: board "c": host: expected a string, got an integer`},
		{"not a table", board + "validity = 5\n",
			`boards.toml:3:12: board "b": validity: expected a table of limits, such as validity = { background_peak_pct = 8, background_avg_pct = 2 }, got an integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("boards.toml", []byte(tc.doc))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Parse error:\n got %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestPreparationInBoardsToml(t *testing.T) {
	doc := `[boards.am64x]
host = "192.0.2.64"
validity = { governor = "performance" }

[profiles.nightly]
algorithms = ["sha256"]
validity = { quiet_wait = "90s", governor = "schedutil" }
`
	inv, err := Parse("boards.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := inv.Profile("nightly")
	pr := PrepareFor(inv.Boards()[0], p)
	if pr.QuietWait == nil || pr.QuietWait.String() != "1m30s" || pr.Governor != "performance" {
		t.Errorf("preparation of am64x under nightly = %+v, want the profile's 90 s and the board's performance", pr)
	}
}
