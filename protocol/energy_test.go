package protocol

import (
	"math"
	"strings"
	"testing"
	"time"
)

// at is a time on the trace's clock, s seconds after its start.
func at(t *PowerTrace, s float64) time.Time {
	return t.start.Add(time.Duration(s * float64(time.Second)))
}

func TestPowerTraceEnergyKnownTruth(t *testing.T) {
	// a power ramp P(t) = 2 + t W read every 0.1 s: the trapezoid is exact for it, ∫_1^4 = 3*2 + (16-1)/2 = 13.5 J,
	// whatever the window's ends fall between readings
	ramp := NewPowerTrace(false, 100*time.Millisecond)
	// a counter of the same energy: E(t) = 2t + t²/2 J
	counter := NewPowerTrace(true, 100*time.Millisecond)
	for i := 0; i <= 60; i++ {
		s := float64(i) / 10
		ramp.Add(at(ramp, s), 2+s)
		counter.Add(at(counter, s), 2*s+s*s/2)
	}
	for _, tc := range []struct {
		name   string
		tr     *PowerTrace
		t0, t1 float64
		want   float64
		tol    float64 // a counter is interpolated linearly: off by at most h²/8 of its curvature at each end
	}{
		{"power on readings", ramp, 1, 4, 13.5, 1e-9},
		{"power between readings", ramp, 1.05, 3.97, 2*2.92 + (3.97*3.97-1.05*1.05)/2, 1e-9},
		{"counter on readings", counter, 1, 4, 13.5, 1e-9},
		{"counter between readings", counter, 1.05, 3.97, 2*2.92 + (3.97*3.97-1.05*1.05)/2, 2 * 0.01 / 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.tr.Energy(at(tc.tr, tc.t0), at(tc.tr, tc.t1))
			if r.Unknown != "" || math.Abs(r.Joules-tc.want) > tc.tol {
				t.Fatalf("Energy = %+v, want %.6f J", r, tc.want)
			}
			if r.Samples < 28 {
				t.Errorf("Samples = %d, want the 29 or so readings inside the window", r.Samples)
			}
		})
	}
}

func TestPowerTraceUnknown(t *testing.T) {
	fill := func(counter bool, vals ...float64) *PowerTrace {
		tr := NewPowerTrace(counter, 100*time.Millisecond)
		for i, v := range vals {
			tr.Add(at(tr, float64(i)/10), v)
		}
		return tr
	}
	steady := []float64{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	withFault := fill(false, steady...)
	withFault.Fault(at(withFault, 0.55), "read /sys/class/hwmon/hwmon2/power1_input: no such device")
	for _, tc := range []struct {
		name   string
		tr     *PowerTrace
		t0, t1 float64
		want   string
		short  bool
	}{
		{"shorter than three intervals", fill(false, steady...), 0.3, 0.55, "shorter than 3 intervals", true},
		{"sensor vanished", withFault, 0.2, 0.9, "no such device", false},
		{"negative reading", fill(false, 3, 3, 3, 3, -1, 3, 3, 3, 3, 3, 3), 0.1, 0.9, "read -1", false},
		{"absurd reading", fill(false, 3, 3, 3, 3, 3, 3, 5e6, 3, 3, 3, 3), 0.1, 0.9, "above any board's", false},
		{"counter backwards", fill(true, 10, 10.3, 10.6, 10.9, 1, 1.3, 1.6, 1.9, 2.2, 2.5, 2.8), 0.1, 0.9, "went back", false},
		{"counter leaps", fill(true, 10, 10.3, 10.6, 10.9, 9000, 9000.3, 9000.6, 9000.9, 9001.2, 9001.5, 9001.8), 0.1, 0.9, "rose", false},
		{"NaN", fill(false, 3, 3, 3, math.NaN(), 3, 3, 3, 3, 3, 3, 3), 0.1, 0.9, "NaN", false},
		{"after the last reading", fill(false, steady...), 0.5, 3, "cover", false},
		{"no readings", fill(false), 0, 1, "0 readings", false},
		{"no wall time", fill(false, steady...), 0.5, 0.5, "no wall time", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.tr.Energy(at(tc.tr, tc.t0), at(tc.tr, tc.t1))
			if !strings.Contains(r.Unknown, tc.want) || r.Short != tc.short {
				t.Errorf("Energy = %+v, want unknown naming %q, short %v", r, tc.want, tc.short)
			}
		})
	}
	if r := fill(false, steady...).Energy(at(withFault, 0.1), at(withFault, 0.9)); r.Unknown != "" || math.Abs(r.Joules-2.4) > 1e-9 {
		t.Errorf("steady 3 W over 0.8 s = %+v, want 2.4 J", r)
	}
}

func TestPointSetEnergy(t *testing.T) {
	idle := 2.0
	p := Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16384, Count: 1000}
	p.SetEnergy(EnergyReading{Joules: 9, Seconds: 3, Samples: 30}, &idle)
	// (9 J - 2 W * 3 s) / 16384000 B = 0.1831 µJ/B
	if p.EnergyJ == nil || *p.EnergyJ != 9 || *p.PowerW != 3 || p.EnergyUJPerByte == nil ||
		math.Abs(*p.EnergyUJPerByte-3e6/16384000) > 1e-12 || p.EnergySamples != 30 {
		t.Errorf("SetEnergy: %v W, %v J, %v µJ/B, %d samples", p.PowerW, p.EnergyJ, p.EnergyUJPerByte, p.EnergySamples)
	}
	q := Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Count: 10}
	q.SetEnergy(EnergyReading{Seconds: 0.05, Short: true, Unknown: "short"}, &idle)
	if q.EnergyJ != nil || q.EnergyUnknown != "short" || len(q.Flags) != 1 || q.Flags[0] != FlagEnergyShort {
		t.Errorf("a short point: %+v", q)
	}
	r := Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Count: 10}
	r.SetEnergy(EnergyReading{Joules: 1, Seconds: 1, Samples: 10}, nil)
	if r.EnergyJ == nil || r.EnergyUJPerByte != nil || !strings.Contains(r.EnergyUnknown, "idle power is unknown") {
		t.Errorf("no idle power: %+v", r)
	}
	// Below idle: the joules are kept, µJ/B above idle is unknown with both powers, never negative.
	b := Point{Mode: "afalg", Algorithm: "aes-128-cbc", BlockSize: 16384, Count: 1000}
	b.SetEnergy(EnergyReading{Joules: 5.7, Seconds: 3, Samples: 30}, &idle)
	if b.EnergyJ == nil || *b.EnergyJ != 5.7 || b.EnergyUJPerByte != nil ||
		!strings.Contains(b.EnergyUnknown, "mean power 1.90 W was below the idle power 2.00 W") {
		t.Errorf("a point below idle: %v J, %v µJ/B, %q", b.EnergyJ, b.EnergyUJPerByte, b.EnergyUnknown)
	}
}

func TestParsePowerSpec(t *testing.T) {
	for _, tc := range []struct{ spec, name, channel, err string }{
		{"ina226", "ina226", "", ""},
		{"ina3221/VDD_CPU", "ina3221", "VDD_CPU", ""},
		{"ina3221/2", "ina3221", "2", ""},
		{"ina3221/VBUS 5V", "ina3221", "VBUS 5V", ""},
		{"", "", "", "device name"},
		{"ina-226", "", "", "device name"},
		{"ina*", "", "", "device name"},
		{"ina226/", "", "", "channel"},
		{"ina226/a\nb", "", "", "channel"},
		{"ina226/" + strings.Repeat("x", 65), "", "", "channel"},
	} {
		name, ch, err := ParsePowerSpec(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePowerSpec(%q) = %v, want an error naming the %s", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || name != tc.name || ch != tc.channel {
			t.Errorf("ParsePowerSpec(%q) = %q, %q, %v", tc.spec, name, ch, err)
		}
	}
}

func TestDecodeRefusesBadEnergy(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"type":"point","mode":"cpu","algorithm":"sha256","energy_j":-1}`, "energy_j = -1"},
		{`{"type":"point","mode":"cpu","algorithm":"sha256","power_w":1e9}`, "power_w = 1e+09"},
		{`{"type":"point","mode":"cpu","algorithm":"sha256","energy_samples":-2}`, "energy_samples"},
		{`{"type":"point","mode":"cpu","algorithm":"sha256","window":{"s":-1,"ended_ago_s":0}}`, "window"},
	} {
		if _, err := DecodeLine([]byte(tc.line)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeLine(%s) = %v, want an error naming %q", tc.line, err, tc.want)
		}
	}
	m, err := DecodeLine([]byte(`{"type":"point","mode":"cpu","algorithm":"sha256","energy_j":2.5,"power_w":0.83,"energy_samples":30,"energy_uj_per_byte":-0.01}`))
	if err != nil || *m.Point.EnergyJ != 2.5 || *m.Point.EnergyUJPerByte != -0.01 {
		t.Errorf("a good point with energy: %+v, %v", m.Point, err)
	}
}
