package fleet

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// TestRunBoardWithoutOpenSSLFails: a board whose openssl is missing measured nothing it was asked to; it used to
// end "ok, 0 points". It is failed (or partial, when this host's kcapi still measured something), with the cause.
func TestRunBoardWithoutOpenSSLFails(t *testing.T) {
	opts := runOptions(t, inventory.Board{Name: "local", Local: true, OpenSSL: "/nonexistent/openssl"})
	opts.Sweep.Modes = nil // every mode the probe finds
	sink := newMemSink()
	outs, err := Run(context.Background(), opts, sink)
	if !errors.Is(err, ErrBoardsFailed) {
		t.Fatalf("Run error = %v, want ErrBoardsFailed", err)
	}
	o := outs[0]
	want := protocol.StatusFailed
	if o.Points > 0 { // kcapi needs no openssl; on a host with AF_ALG it measures
		want = protocol.StatusPartial
	}
	const cause = "openssl /nonexistent/openssl: not found"
	if o.Status != want || !errors.Is(o.Err, ErrNoOpenSSL) || !strings.Contains(o.Err.Error(), cause) {
		t.Errorf("outcome = %s, %v; want %s, ErrNoOpenSSL saying %q", o.Status, o.Err, want, cause)
	}
	if got := sink.finished["local"]; got[0] != string(want) || !strings.Contains(got[1], cause) {
		t.Errorf("stored end = %v, want %s with the cause", got, want)
	}
	for _, mode := range []string{"soft", "cpu"} {
		if !slices.ContainsFunc(sink.skips["local"], func(s protocol.Skip) bool { return s.Mode == mode && s.Reason == cause }) {
			t.Errorf("no skip of %s saying %q in %+v", mode, cause, sink.skips["local"])
		}
	}
}

// TestCheckBoardWithoutOpenSSLFails: `boards check` said ok for a board whose openssl is missing.
func TestCheckBoardWithoutOpenSSLFails(t *testing.T) {
	ro := runOptions(t)
	res := Check(context.Background(), CheckOptions{Agent: ro.Agent,
		Boards: []inventory.Board{{Name: "local", Local: true, OpenSSL: "/nonexistent/openssl"}}})
	if err := res[0].Err; !errors.Is(err, ErrNoOpenSSL) || !strings.Contains(err.Error(), "openssl /nonexistent/openssl: not found") {
		t.Errorf("check = %v, want ErrNoOpenSSL naming the path", err)
	}
	// a board that only asks for kcapi needs no openssl: its readiness is kcapi's
	res = Check(context.Background(), CheckOptions{Agent: ro.Agent,
		Boards: []inventory.Board{{Name: "local", Local: true, OpenSSL: "/nonexistent/openssl", Modes: []string{"kcapi"}}}})
	if err := res[0].Err; errors.Is(err, ErrNoOpenSSL) {
		t.Errorf("kcapi-only board: check = %v, want no complaint about openssl", err)
	}
}

// TestRunDefaultModesFromProbe: with no modes from the board, the profile or the command line, a sweep measures
// every mode the probe finds and records the others as skips with the probe's reason.
func TestRunDefaultModesFromProbe(t *testing.T) {
	opts := runOptions(t, inventory.Board{Name: "local", Local: true})
	opts.Sweep.Modes = nil
	opts.Sweep.Sizes = []int{64}
	sink := newMemSink()
	outs, err := Run(context.Background(), opts, sink)
	if err != nil {
		t.Fatalf("Run: %v (%v)", err, outs[0].Err)
	}
	facts := sink.facts["local"]
	if len(facts.Modes) < len(protocol.StandardModes) {
		t.Fatalf("probe reported %d modes, want every standard one", len(facts.Modes))
	}
	var measured []string
	for _, m := range facts.Modes {
		points := slices.ContainsFunc(sink.points["local"], func(p protocol.Point) bool { return p.Mode == m.Mode })
		skip := slices.ContainsFunc(sink.skips["local"], func(s protocol.Skip) bool { return s.Mode == m.Mode && s.Reason == m.Reason })
		switch {
		case m.Available && !points:
			t.Errorf("mode %s is available but has no point", m.Mode)
		case m.Available:
			measured = append(measured, m.Mode)
		case !skip:
			t.Errorf("mode %s is not available (%s) but no skip says so", m.Mode, m.Reason)
		}
	}
	if got := outs[0].Modes.Measured; !reflect.DeepEqual(got, measured) {
		t.Errorf("outcome measured %v, want %v", got, measured)
	}
	if got := len(outs[0].Modes.Measured) + len(outs[0].Modes.Unavailable); got != len(facts.Modes) {
		t.Errorf("outcome modes %+v: every mode must be measured or explained", outs[0].Modes)
	}
}

func TestBoardPlanModes(t *testing.T) {
	tests := []struct {
		name        string
		board, prof []string
		cli         bool
		want        []string
	}{
		{name: "board wins over the profile", board: []string{"soft", "cpu", "devcrypto"}, prof: []string{"soft", "cpu"},
			want: []string{"soft", "cpu", "devcrypto"}},
		{name: "--modes wins over the board", board: []string{"soft", "cpu", "devcrypto"}, prof: []string{"soft", "cpu"}, cli: true,
			want: []string{"soft", "cpu"}},
		{name: "profile when the board has none", prof: []string{"cpu", "kcapi"}, want: []string{"cpu", "kcapi"}},
		{name: "none: left to the probe", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := RunOptions{Sweep: inventory.Profile{Modes: tc.prof}, ModesSet: tc.cli}
			if got := boardPlan(opts, inventory.Board{Name: "b", Modes: tc.board}).Modes; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("modes = %v, want %v", got, tc.want)
			}
		})
	}
}

// labFacts are the modes of the QEMU lab's boards: AF_ALG works, /dev/crypto is missing.
var labFacts = protocol.Facts{Modes: []protocol.ModeFact{
	{Mode: "soft", Available: true}, {Mode: "cpu", Available: true},
	{Mode: "devcrypto", Reason: "no /dev/crypto"},
	{Mode: "afalg", Available: true}, {Mode: "kcapi", Available: true},
}}

func TestPlanModesAreEveryProbedMode(t *testing.T) {
	f := labFacts
	f.Modes = append(slices.Clone(f.Modes), protocol.ModeFact{Mode: "engine:pka", Reason: "engine pka: not available"})
	if got, want := planModes(&f), []string{"soft", "cpu", "devcrypto", "afalg", "kcapi", "engine:pka"}; !reflect.DeepEqual(got, want) {
		t.Errorf("planModes = %v, want %v (unavailable ones too, to be recorded as skips)", got, want)
	}
}

func TestModeReport(t *testing.T) {
	noDev := []protocol.ModeFact{{Mode: "devcrypto", Reason: "no /dev/crypto"}}
	tests := []struct {
		name  string
		modes []string
		good  map[string]int
		want  ModeReport
	}{
		{name: "every mode", modes: []string{"soft", "cpu", "devcrypto", "afalg", "kcapi"},
			good: map[string]int{"soft": 12, "cpu": 12, "afalg": 6, "kcapi": 12},
			want: ModeReport{Measured: []string{"soft", "cpu", "afalg", "kcapi"}, Available: []string{"soft", "cpu", "afalg", "kcapi"},
				Unavailable: noDev}},
		{name: "not asked", modes: []string{"soft", "cpu", "afalg"}, good: map[string]int{"soft": 1, "cpu": 1},
			want: ModeReport{Measured: []string{"soft", "cpu"}, Unmeasured: []string{"afalg"}, Available: []string{"soft", "cpu", "afalg"},
				Unavailable: noDev, NotAsked: []string{"kcapi"}}},
		{name: "check", modes: []string{"soft", "cpu", "devcrypto", "afalg", "kcapi"},
			want: ModeReport{Available: []string{"soft", "cpu", "afalg", "kcapi"}, Unavailable: noDev}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := modeReport(&labFacts, tc.modes, tc.good); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("modeReport = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestNothingMeasured(t *testing.T) {
	plan := protocol.Plan{Algorithms: []string{"aes-128-cbc"}, Modes: []string{"devcrypto", "afalg"}}
	tests := []struct {
		name    string
		good    map[string]int
		failed  []pointFailure
		skipped []protocol.Skip
		want    string // "" for no error
	}{
		{name: "one good point is enough", good: map[string]int{"afalg": 1}},
		{name: "every mode unavailable", skipped: []protocol.Skip{{Mode: "devcrypto", Reason: "no /dev/crypto"}, {Mode: "afalg", Reason: "no /dev/crypto"}},
			want: "nothing measured: devcrypto, afalg: no /dev/crypto"},
		{name: "every point failed", failed: []pointFailure{{"afalg aes-128-cbc", "engine afalg fell back to software"},
			{"afalg aes-128-cbc", "engine afalg fell back to software"}, {"afalg aes-128-cbc", ""}},
			skipped: []protocol.Skip{{Mode: "devcrypto", Algorithm: "aes-128-cbc", Reason: "no cipher"}},
			want:    "nothing measured: devcrypto aes-128-cbc: no cipher; 3 points failed: afalg aes-128-cbc: engine afalg fell back to software; afalg aes-128-cbc: no reason given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := nothingMeasured(plan, tc.good, tc.failed, tc.skipped)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("nothingMeasured = %v, want nil", err)
			case tc.want != "" && (!errors.Is(err, ErrNothingMeasured) || err.Error() != tc.want):
				t.Errorf("nothingMeasured = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestFailedClause: failed points are named by what failed and why, grouped by reason in the order first seen,
// each mode and algorithm once whatever its sizes, and the clause is one line: cut at failedClauseWidth runes.
func TestFailedClause(t *testing.T) {
	routed := "the kernel did most of the work (2.6 s system against 1.3 s user), and the board's OpenSSL " +
		"configuration /etc/ssl/openssl.cnf routes aes-128-cbc to an engine: openssl did not run it on the CPU"
	long := strings.Repeat("x", 400)
	for _, c := range []struct {
		name string
		fs   []pointFailure
		want string
	}{
		{"none", nil, ""},
		{"one", []pointFailure{{"cpu aes-128-cbc", routed}}, "1 point failed: cpu aes-128-cbc: " + routed},
		{"grouped", []pointFailure{{"cpu aes-128-cbc", "r1"}, {"cpu sha256", "r2"}, {"soft aes-128-cbc", "r1"}, {"cpu aes-128-cbc", "r1"}},
			"4 points failed: cpu aes-128-cbc, soft aes-128-cbc: r1; cpu sha256: r2"},
		{"capped", []pointFailure{{"cpu aes-128-cbc", long}}, "1 point failed: cpu aes-128-cbc: " + long[:failedClauseWidth-34] + "…"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := failedClause(c.fs)
			if got != c.want {
				t.Errorf("failedClause = %q, want %q", got, c.want)
			}
			if n := utf8.RuneCountInString(got); n > failedClauseWidth {
				t.Errorf("failedClause is %d runes, more than %d", n, failedClauseWidth)
			}
		})
	}
}

// TestModeReportOffload: the board's offload drivers (async, not a CPU implementation) are named, and whether
// the modes asked for measure them: kcapi:all does, a kcapi:DRIVER of another driver does not.
func TestModeReportOffload(t *testing.T) {
	f := labFacts
	f.Modes = append(slices.Clone(f.Modes), protocol.ModeFact{Mode: "kcapi:all", Available: true})
	f.ProcCrypto = []protocol.CryptoAlg{
		{Name: "cbc(aes)", Driver: "cbc-aes-ce", Priority: 300, Type: "skcipher", Selftest: "passed"},
		{Name: "cbc(aes)", Driver: "cbc-aes-neonbs", Priority: 250, Type: "skcipher", Selftest: "passed", Async: true},
		{Name: "cbc(aes)", Driver: "virtio_crypto_aes_cbc", Priority: 150, Type: "skcipher", Selftest: "passed", Async: true},
		{Name: "rsa", Driver: "virtio-crypto-rsa", Priority: 150, Type: "akcipher", Selftest: "unknown", Async: true},
	}
	for _, tc := range []struct {
		modes []string
		want  []Offload
	}{
		{[]string{"cpu", "kcapi:all"}, []Offload{{Driver: "virtio_crypto_aes_cbc", Asked: true}}},
		{[]string{"cpu", "kcapi:cbc-aes-ce"}, []Offload{{Driver: "virtio_crypto_aes_cbc"}}},
		{[]string{"kcapi:virtio_crypto_aes_cbc"}, []Offload{{Driver: "virtio_crypto_aes_cbc", Asked: true}}},
	} {
		if got := modeReport(&f, tc.modes, nil).Offload; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("modes %v: Offload = %+v, want %+v", tc.modes, got, tc.want)
		}
	}
}
