package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// evidenceOf samples two fixture trees as before and after a point whose agent tree used ownSeconds of CPU.
func evidenceOf(t *testing.T, before, after string, ownSeconds float64) *protocol.Evidence {
	t.Helper()
	b, a := sampleEvidence("testdata/evidence/"+before), sampleEvidence("testdata/evidence/"+after)
	// the real process's rusage would make the figure depend on the test run: pin it
	b.tree, a.tree, b.treeOK, a.treeOK = 0, ownSeconds, true, true
	return evidenceBetween(b, a)
}

func TestEvidenceFromBoardTree(t *testing.T) {
	ev := evidenceOf(t, "rk3399-before", "rk3399-after", 1.0)
	if ev.Cores != 4 {
		t.Errorf("cores = %d, want 4", ev.Cores)
	}
	// 140 busy ticks of 400, of which the agent's tree used 100 (1.0 s): 40 ticks of background = 10 %
	if ev.BackgroundPct == nil || *ev.BackgroundPct != 10 {
		t.Errorf("background = %v, want 10", deref(ev.BackgroundPct))
	}
	if got, want := ev.CoreBusyPct, []float64{100, 40, 0, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("core busy = %v, want %v", got, want)
	}
	if ev.StealPct == nil || *ev.StealPct != 0 {
		t.Errorf("steal = %v, want 0", deref(ev.StealPct))
	}
	if ev.LoadAvg1 == nil || *ev.LoadAvg1 != 0.31 {
		t.Errorf("loadavg (before) = %v, want 0.31", deref(ev.LoadAvg1))
	}
	if ev.SwapIn == nil || *ev.SwapIn != 0 || ev.SwapOut == nil || *ev.SwapOut != 64 {
		t.Errorf("swap in/out = %v/%v, want 0/64", ev.SwapIn, ev.SwapOut)
	}
	if len(ev.CPUFreq) != 1 {
		t.Fatalf("cpufreq policies = %d, want 1", len(ev.CPUFreq))
	}
	p := ev.CPUFreq[0]
	if p.Policy != "policy0" || p.Governor != "schedutil" || p.Driver != "cpufreq-dt" || p.CPUInfoMaxKHz != 1800000 ||
		p.MinKHz != 408000 || p.MaxKHz != 1800000 || p.CPUs != "0 1 2 3" {
		t.Errorf("policy = %+v", p)
	}
	if p.BelowMaxPct == nil || *p.BelowMaxPct != 22 || p.LowestKHz != 1416000 {
		t.Errorf("below max = %v %% (lowest %d kHz), want 22 %% at 1416000", deref(p.BelowMaxPct), p.LowestKHz)
	}
	if got, want := p.CurKHz, []int64{1800000, 1416000}; !reflect.DeepEqual(got, want) {
		t.Errorf("cur samples = %v, want %v", got, want)
	}
	if len(ev.Thermal) != 2 {
		t.Fatalf("thermal sensors = %d, want 2: %+v", len(ev.Thermal), ev.Thermal)
	}
	z := ev.Thermal[0]
	if z.Name != "thermal_zone0" || z.Type != "cpu-thermal" || *z.BeforeMC != 45000 || *z.AfterMC != 71000 || *z.TripMC != 70000 {
		t.Errorf("zone = %+v", z)
	}
	h := ev.Thermal[1]
	if h.Name != "hwmon0/temp1" || h.Type != "scpi_sensors" || *h.AfterMC != 52000 || h.TripMC != nil {
		t.Errorf("hwmon = %+v", h)
	}
	if len(ev.Unknown) != 0 {
		t.Errorf("unknown = %q, want nothing on a board that has everything", ev.Unknown)
	}
}

func TestEvidenceMissingSysfsIsUnknown(t *testing.T) {
	ev := evidenceOf(t, "bare", "bare", 0)
	if ev.CPUFreq != nil || ev.Thermal != nil || ev.SwapIn != nil || ev.LoadAvg1 != nil {
		t.Errorf("a bare board has figures it cannot have: %+v", ev)
	}
	joined := strings.Join(ev.Unknown, "\n")
	for _, want := range []string{"cpufreq", "thermal", "swap", "loadavg", "offline cpus", "background cpu"} {
		if !strings.Contains(joined, want) {
			t.Errorf("unknown does not name %s: %q", want, ev.Unknown)
		}
	}
	// the whole tree missing (unreadable /proc too) is unknown as well, never an error or a zero
	ev = evidenceOf(t, "no-such-board", "no-such-board", 0)
	if ev.BackgroundPct != nil || ev.Cores != 0 {
		t.Errorf("no /proc: background %v, cores %d; want unknown", deref(ev.BackgroundPct), ev.Cores)
	}
}

func TestEvidenceStealOnVM(t *testing.T) {
	ev := evidenceOf(t, "vm-steal-before", "vm-steal-after", 0)
	if ev.StealPct == nil || *ev.StealPct != 30 {
		t.Errorf("steal = %v, want 30", deref(ev.StealPct))
	}
	// steal is not busy: 100 busy ticks of 200
	if ev.BackgroundPct == nil || *ev.BackgroundPct != 50 {
		t.Errorf("background = %v, want 50", deref(ev.BackgroundPct))
	}
}

// TestEvidenceBackgroundNeverNegative guards the clamp: an agent tree that used more than /proc/stat counted
// (tick rounding) is zero background, not a negative share that Validate would refuse.
func TestEvidenceBackgroundNeverNegative(t *testing.T) {
	ev := evidenceOf(t, "rk3399-before", "rk3399-after", 2.0)
	if ev.BackgroundPct == nil || *ev.BackgroundPct != 0 {
		t.Errorf("background = %v, want 0", deref(ev.BackgroundPct))
	}
	if _, err := json.Marshal(ev); err != nil {
		t.Errorf("evidence does not encode: %v", err)
	}
}

func TestParseTimeInState(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantErr bool
		want    map[int64]uint64
	}{
		{"408000 10\n1800000 20\n", false, map[int64]uint64{408000: 10, 1800000: 20}},
		{"", false, map[int64]uint64{}},
		{"408000\n", true, nil},
		{"abc 10\n", true, nil},
		{"-5 10\n", true, nil},
	} {
		got, err := parseTimeInState(strings.NewReader(tc.in))
		if (err != nil) != tc.wantErr {
			t.Errorf("parseTimeInState(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseTimeInState(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestBelowMaxStatsReset guards against a stats reset (counters going back) read as throttling.
func TestBelowMaxStatsReset(t *testing.T) {
	if _, _, ok := belowMax(map[int64]uint64{1000: 50}, map[int64]uint64{1000: 10}, 1000); ok {
		t.Error("belowMax over a counter reset = ok, want unknown")
	}
	if _, _, ok := belowMax(map[int64]uint64{1000: 50}, map[int64]uint64{1000: 50}, 1000); ok {
		t.Error("belowMax with no time passed = ok, want unknown")
	}
}

func TestParseLoadAvgRefusesGarbage(t *testing.T) {
	for _, in := range []string{"", "x 1 2", "-1 0 0", "NaN 0 0"} {
		if v, err := parseLoadAvg(in); err == nil {
			t.Errorf("parseLoadAvg(%q) = %v, want error", in, v)
		}
	}
	if v, err := parseLoadAvg("1.50 0.2 0.1 1/100 5"); err != nil || v != 1.5 {
		t.Errorf("parseLoadAvg = %v, %v; want 1.5", v, err)
	}
}

func deref(p *float64) any {
	if p == nil {
		return "unknown"
	}
	return *p
}
