package inventory

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
)

func TestBuiltinProfiles(t *testing.T) {
	inv := Default()
	quick, err := inv.Profile("quick")
	if err != nil {
		t.Fatal(err)
	}
	// no modes: every mode the probe finds, accelerators included
	want := Profile{Name: "quick", Algorithms: []string{"aes-128-cbc", "sha256"},
		Sizes: []int{16, 64, 256, 1024, 8192, 16384}, Seconds: 1, Threads: 1, Repeats: 1}
	if !reflect.DeepEqual(quick, want) {
		t.Errorf("quick = %+v, want %+v", quick, want)
	}
	// quick must stay within a minute of measurement on a board that has every standard mode.
	if got := float64(len(quick.Algorithms)*len(protocol.StandardModes)*len(quick.Sizes)*quick.Repeats) * quick.Seconds; got > 60 {
		t.Errorf("quick measures for %v s, want at most 60", got)
	}
	full, err := inv.Profile("full")
	if err != nil {
		t.Fatal(err)
	}
	want = Profile{Name: "full", Algorithms: []string{"aes-128-cbc", "aes-256-cbc", "aes-128-gcm", "aes-256-gcm", "aes-128-ctr",
		"sha1", "sha256", "sha512", "rsa2048", "ecdsap256", "ed25519"},
		Sizes: []int{16, 64, 256, 1024, 8192, 16384}, Seconds: 3, Threads: 1, Repeats: 5}
	if !reflect.DeepEqual(full, want) {
		t.Errorf("full = %+v, want %+v", full, want)
	}
	for _, p := range inv.Profiles() {
		if err := ValidateProfile(p); err != nil {
			t.Errorf("built-in profile: %v", err)
		}
	}
	quick.Algorithms[0] = "changed"
	if again, _ := inv.Profile("quick"); again.Algorithms[0] != "aes-128-cbc" {
		t.Errorf("a caller's change reached the inventory: %v", again.Algorithms)
	}
}

// TestBuiltinProfileDurations keeps the figures in builtinProfiles' doc comment true: the seconds of measurement
// a profile asks of one board that has all its modes (every standard mode when the profile names none). A
// symmetric algorithm is measured at every size, a public-key one twice (sign and verify), each for Seconds.
func TestBuiltinProfileDurations(t *testing.T) {
	measured := func(p Profile) float64 {
		n := 0
		for _, alg := range p.Algorithms {
			_, asym, err := opensslspeed.Args(alg)
			if err != nil {
				t.Fatalf("profile %s: %v", p.Name, err)
			}
			if asym {
				n += 2
			} else {
				n += len(p.Sizes)
			}
		}
		modes := len(p.Modes)
		if modes == 0 {
			modes = len(protocol.StandardModes)
		}
		return float64(n*modes*p.Repeats) * p.Seconds
	}
	for name, want := range map[string]float64{QuickProfile: 60, FullProfile: 67.5 * 60} {
		if got := measured(builtinProfiles()[name]); got != want {
			t.Errorf("profile %s measures for %v s, want %v s (update the doc comment of builtinProfiles)", name, got, want)
		}
	}
	// nightly repeats each point from precision.MinN (a quiet board) up to its MaxRepeat: 27 to 90 minutes, as the
	// doc comment of builtinProfiles and the README's nightly recipe say.
	nightly := builtinProfiles()[NightlyProfile]
	for _, tc := range []struct {
		repeats int
		want    float64
	}{{precision.MinN, 27 * 60}, {nightly.MaxRepeat, 90 * 60}} {
		p := nightly
		p.Repeats = tc.repeats
		if got := measured(p); got != tc.want {
			t.Errorf("profile nightly at %d repeats measures for %v s, want %v s (update the doc comment of builtinProfiles and README)",
				tc.repeats, got, tc.want)
		}
	}
}

func TestFileProfiles(t *testing.T) {
	inv := seedInventory(t)
	tests := []struct {
		name string
		want Profile
	}{
		{"nightly", Profile{Name: "nightly", Algorithms: []string{"aes-128-cbc", "aes-256-cbc", "sha256"},
			Modes: []string{"soft", "cpu", "devcrypto", "afalg", "kcapi"}, Sizes: []int{16, 64, 256, 1024, 8192, 16384},
			Seconds: 1, Threads: 1, Repeats: 3}},
		// A file's quick replaces the built-in one; what it leaves out takes the defaults, not the built-in's values.
		{"quick", Profile{Name: "quick", Algorithms: []string{"sha256"}, Sizes: DefaultSizes(), Seconds: 1, Threads: 1, Repeats: 1}},
		{"full", builtinProfiles()["full"]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := inv.Profile(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Profile(%q) = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
	var names []string
	for _, p := range inv.Profiles() {
		names = append(names, p.Name)
	}
	if got, want := names, []string{"full", "nightly", "quick"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Profiles() names = %v, want %v", got, want)
	}
}

func TestUnknownProfile(t *testing.T) {
	inv := seedInventory(t)
	tests := []struct{ name, want string }{
		{"nighly", `unknown profile "nighly": did you mean "nightly"? (known profiles: full, nightly, quick)`},
		{"fast", `unknown profile "fast" (known profiles: full, nightly, quick)`},
		{"", `unknown profile "" (known profiles: full, nightly, quick)`},
	}
	for _, tt := range tests {
		_, err := inv.Profile(tt.name)
		if got := errString(err); got != tt.want {
			t.Errorf("Profile(%q): error %q, want %q", tt.name, got, tt.want)
		}
		if !errors.Is(err, ErrUnknownProfile) {
			t.Errorf("Profile(%q): %v is not ErrUnknownProfile", tt.name, err)
		}
	}
}

func TestValidateProfile(t *testing.T) {
	ok := Profile{Name: "p", Algorithms: []string{"sha256"}, Modes: []string{"cpu"}, Sizes: []int{16}, Seconds: 1, Threads: 1, Repeats: 1}
	tests := []struct {
		name   string
		change func(p *Profile)
		want   string
	}{
		{"valid", func(p *Profile) {}, "<nil>"},
		{"no modes is valid", func(p *Profile) { p.Modes = nil }, "<nil>"},
		{"no algorithms", func(p *Profile) { p.Algorithms = nil }, `profile "p": no algorithms (expected at least one, such as aes-128-cbc)`},
		{"bad algorithm and mode", func(p *Profile) { p.Algorithms = []string{"sha256", "sha256;id"}; p.Modes = []string{"cpu", "cpu"} },
			`profile "p": algorithms[1]: invalid algorithm "sha256;id" (expected lower-case letters, digits and '-', such as aes-128-cbc)` + "\n" +
				`profile "p": modes[1]: "cpu" is listed twice`},
		{"sizes", func(p *Profile) { p.Sizes = []int{0, 16, 16} },
			`profile "p": sizes[0]: size 0 is out of range (expected 1 to 16777216 bytes)` + "\n" + `profile "p": sizes[2]: 16 is listed twice`},
		{"no sizes", func(p *Profile) { p.Sizes = nil }, `profile "p": no sizes (expected at least one block size in bytes)`},
		{"counts", func(p *Profile) { p.Seconds = math.NaN(); p.Threads = 0; p.Repeats = -1 },
			`profile "p": seconds NaN is out of range (expected more than 0 and at most 600)` + "\n" +
				`profile "p": threads 0 is out of range (expected 1-1024)` + "\n" +
				`profile "p": repeats -1 is out of range (expected 1-1000)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ok
			p.Algorithms = append([]string{}, ok.Algorithms...)
			tt.change(&p)
			if got := errString(ValidateProfile(p)); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
