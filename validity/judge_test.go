package validity

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func f(v float64) *float64 { return &v }
func i(v int64) *int64     { return &v }

func TestDefaultLimitsScaleWithCores(t *testing.T) {
	for _, tc := range []struct {
		cores     int
		peak, avg float64
	}{
		{0, 16, 4}, {1, 16, 4}, {2, 8, 2}, {4, 4, 1}, {8, 2, 0.5},
	} {
		l := DefaultLimits(tc.cores)
		if l.BackgroundPeakPct != tc.peak || l.BackgroundAvgPct != tc.avg || l.ThrottlePct != 10 {
			t.Errorf("DefaultLimits(%d) = %+v, want peak %v avg %v throttle 10", tc.cores, l, tc.peak, tc.avg)
		}
	}
}

func TestJudge(t *testing.T) {
	quiet := protocol.Evidence{Cores: 2, BackgroundPct: f(0.5), StealPct: f(0), SwapIn: i(0), SwapOut: i(0)}
	with := func(mod func(*protocol.Evidence)) *protocol.Evidence {
		e := quiet
		mod(&e)
		return &e
	}
	policy := func(gov, driver string, below float64) protocol.FreqPolicy {
		return protocol.FreqPolicy{Policy: "policy0", Governor: gov, Driver: driver, MaxKHz: 1000000,
			CPUInfoMaxKHz: 1000000, BelowMaxPct: f(below)}
	}
	for _, tc := range []struct {
		name    string
		mode    string
		ev      *protocol.Evidence
		want    string
		reasons []string
	}{
		{"no evidence", "cpu", nil, "", nil},
		{"quiet", "cpu", &quiet, "ok", nil},
		{"nothing known", "cpu", &protocol.Evidence{Unknown: []string{"cpufreq: none"}}, "ok", nil},
		{"busy", "cpu", with(func(e *protocol.Evidence) { e.BackgroundPct = f(38) }), "invalid",
			[]string{"background CPU 38 % (limit 8 %)"}},
		{"a little busy", "cpu", with(func(e *protocol.Evidence) { e.BackgroundPct = f(3.14) }), "suspect",
			[]string{"background CPU 3.1 % (suspect above 2 %)"}},
		{"busy, accelerated", "afalg", with(func(e *protocol.Evidence) { e.BackgroundPct = f(38) }), "suspect",
			[]string{"background CPU 38 % (limit 8 %; kernel crypto workers count as background in afalg)"}},
		{"8 cores: 3 % is too much", "cpu", with(func(e *protocol.Evidence) { e.Cores, e.BackgroundPct = 8, f(3) }), "invalid",
			[]string{"background CPU 3 % (limit 2 %)"}},
		{"steal", "cpu", with(func(e *protocol.Evidence) { e.StealPct = f(30) }), "invalid", []string{"steal 30 % (limit 8 %)"}},
		{"throttled", "cpu", with(func(e *protocol.Evidence) {
			e.CPUFreq = []protocol.FreqPolicy{policy("schedutil", "cpufreq-dt", 22)}
		}), "invalid", []string{"throttled: 22 % of the time below 1000 MHz (limit 10 %)"}},
		{"big.LITTLE: the cluster at full speed ran it", "cpu", with(func(e *protocol.Evidence) {
			e.CPUFreq = []protocol.FreqPolicy{policy("schedutil", "cpufreq-dt", 95), policy("schedutil", "cpufreq-dt", 2)}
		}), "ok", nil},
		{"powersave", "cpu", with(func(e *protocol.Evidence) {
			e.CPUFreq = []protocol.FreqPolicy{policy("powersave", "cpufreq-dt", 0)}
		}), "invalid", []string{"governor powersave (policy0)"}},
		{"intel_pstate powersave scales up", "cpu", with(func(e *protocol.Evidence) {
			e.CPUFreq = []protocol.FreqPolicy{policy("powersave", "intel_pstate", 0)}
		}), "ok", nil},
		{"capped", "cpu", with(func(e *protocol.Evidence) {
			p := policy("performance", "cpufreq-dt", 0)
			p.MaxKHz = 600000
			e.CPUFreq = []protocol.FreqPolicy{p}
		}), "suspect", []string{"scaling_max_freq 600 MHz below the CPU's 1000 MHz (policy0)"}},
		{"hot", "cpu", with(func(e *protocol.Evidence) {
			e.Thermal = []protocol.ThermalSensor{{Name: "thermal_zone0", Type: "cpu-thermal", AfterMC: i(71000), TripMC: i(70000)},
				{Name: "hwmon0/temp1", AfterMC: i(90000)}} // no trip point: not judged
		}), "suspect", []string{"thermal_zone0 (cpu-thermal) at 71 °C, trip point 70 °C"}},
		{"swapping", "cpu", with(func(e *protocol.Evidence) { e.SwapOut = i(64) }), "suspect",
			[]string{"swapping: 0 pages in, 64 out"}},
		{"offline", "cpu", with(func(e *protocol.Evidence) { e.OfflineCPUs = "2-3" }), "suspect", []string{"CPUs 2-3 offline"}},
		// an import's CPU-timed capture: the CPU share it reports, its core count unknown
		{"had the CPU 45 %", "cpu", &protocol.Evidence{CPUSharePct: f(45)}, "invalid",
			[]string{"had the CPU 45 % of the time: the machine was busy (invalid below 84 %)"}},
		{"soft had the CPU 83.9 %", "soft", &protocol.Evidence{CPUSharePct: f(83.9)}, "invalid",
			[]string{"had the CPU 83.9 % of the time: the machine was busy (invalid below 84 %)"}},
		{"had the CPU 93 %", "cpu", &protocol.Evidence{CPUSharePct: f(93)}, "suspect",
			[]string{"had the CPU 93 % of the time (suspect below 96 %)"}},
		{"had the CPU 99.7 %", "cpu", &protocol.Evidence{CPUSharePct: f(99.7)}, "ok", nil},
		{"2 cores: one core's 16 %", "cpu", &protocol.Evidence{Cores: 2, CPUSharePct: f(85)}, "suspect",
			[]string{"had the CPU 85 % of the time (suspect below 96 %)"}},
		{"devcrypto: user time is not its work", "devcrypto", &protocol.Evidence{CPUSharePct: f(5)}, "ok", nil},
		{"engine: not judged by CPU share", "engine:kae", &protocol.Evidence{CPUSharePct: f(5)}, "ok", nil},
		{"provider: not judged by CPU share", "provider:legacy", &protocol.Evidence{CPUSharePct: f(5)}, "ok", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Judge(protocol.Point{Mode: tc.mode, Algorithm: "aes-128-cbc", Evidence: tc.ev}, Overrides{})
			if got.Validity != tc.want || !reflect.DeepEqual(got.Reasons, tc.reasons) {
				t.Errorf("Judge = %q %q, want %q %q", got.Validity, got.Reasons, tc.want, tc.reasons)
			}
		})
	}
}

func TestJudgeOverrides(t *testing.T) {
	p := protocol.Point{Mode: "cpu", Algorithm: "sha256", Evidence: &protocol.Evidence{Cores: 2, BackgroundPct: f(12)}}
	if got := Judge(p, Overrides{}); got.Validity != "invalid" {
		t.Fatalf("default limits: %q, want invalid", got.Validity)
	}
	got := Judge(p, Overrides{BackgroundPeakPct: f(20), BackgroundAvgPct: f(15)})
	if got.Validity != "ok" {
		t.Errorf("peak 20 %%, avg 15 %%: %q %q, want ok", got.Validity, got.Reasons)
	}
}

// TestJudgeCPUShareOverrides: the board's background limits, in one core's terms, set the CPU share's.
func TestJudgeCPUShareOverrides(t *testing.T) {
	p := protocol.Point{Mode: "cpu", Algorithm: "sha256", Evidence: &protocol.Evidence{CPUSharePct: f(95)}}
	if got := Judge(p, Overrides{BackgroundPeakPct: f(4), BackgroundAvgPct: f(1)}); got.Validity != "invalid" ||
		!reflect.DeepEqual(got.Reasons, []string{"had the CPU 95 % of the time: the machine was busy (invalid below 96 %)"}) {
		t.Errorf("peak 4 %%: %q %q, want invalid below 96 %%", got.Validity, got.Reasons)
	}
	if got := Judge(p, Overrides{BackgroundPeakPct: f(100), BackgroundAvgPct: f(100)}); got.Validity != "ok" {
		t.Errorf("peak 100 %%: %q %q, want ok", got.Validity, got.Reasons)
	}
}

func TestJudgeRun(t *testing.T) {
	pt := func(v string, bg float64, reason ...string) protocol.Point {
		return protocol.Point{Mode: "cpu", Validity: v, ValidityReasons: reason,
			Evidence: &protocol.Evidence{Cores: 2, BackgroundPct: f(bg)}}
	}
	got := JudgeRun([]protocol.Point{pt("ok", 0.1), pt("invalid", 40, "background CPU 40 % (limit 8 %)"), pt("ok", 0.2),
		{Mode: "cpu"}}, Overrides{})
	if got.Validity != "invalid" {
		t.Errorf("run verdict %q, want invalid", got.Validity)
	}
	want := "1 of 3 points invalid (first: background CPU 40 % (limit 8 %))"
	if len(got.Reasons) == 0 || got.Reasons[0] != want {
		t.Errorf("run reasons %q, want first %q", got.Reasons, want)
	}
	if !strings.Contains(strings.Join(got.Reasons, "\n"), "mean background CPU 13.4 % over 3 points") {
		t.Errorf("run reasons %q lack the mean background", got.Reasons)
	}
	// each point below the suspect line, their mean above it: the run is suspect
	got = JudgeRun([]protocol.Point{pt("ok", 1.9), pt("ok", 1.9), pt("ok", 3)}, Overrides{BackgroundAvgPct: f(2), BackgroundPeakPct: f(8)})
	if got.Validity != "suspect" {
		t.Errorf("mean above the average limit: %q %q, want suspect", got.Validity, got.Reasons)
	}
	if got := JudgeRun([]protocol.Point{{Mode: "cpu"}}, Overrides{}); got.Validity != "" {
		t.Errorf("no judged points: %q, want not judged", got.Validity)
	}
}
