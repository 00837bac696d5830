package agent

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

func TestFindPowerRailsFixtures(t *testing.T) {
	for _, tc := range []struct {
		root string
		want []string // device: spec reading interval
		watt []float64
	}{
		{"testdata/hwmon/ina226-evm", []string{"hwmon1 ina226/1 power 35"}, []float64{2.0625}},
		{"testdata/hwmon/ina3221-rails", []string{
			"hwmon2 ina3221/VDD_IN current×voltage 26",
			"hwmon2 ina3221/VDD_CPU_GPU_CV current×voltage 26",
			"hwmon2 ina3221/VDD_SOC current×voltage 26",
		}, []float64{1.104 * 5.072, 0.240 * 5.064, 0.632 * 5.056}},
	} {
		t.Run(filepath.Base(tc.root), func(t *testing.T) {
			rails := findPowerRails(tc.root)
			var got []string
			for _, r := range rails {
				got = append(got, strings.Join([]string{r.sensor.Device, r.sensor.Spec(), r.sensor.Reading,
					strconv.Itoa(r.sensor.IntervalMS)}, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("rails:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			m := startHwmonMeter(rails[0])
			defer m.close()
			for i, r := range rails {
				w, err := r.read(m.readInt)
				if err != nil || math.Abs(w-tc.watt[i]) > 1e-9 {
					t.Errorf("%s reads %v W, %v; want %v W", r.sensor.Spec(), w, err, tc.watt[i])
				}
			}
		})
	}
}

func TestChooseRail(t *testing.T) {
	rails := append(findPowerRails("testdata/hwmon/ina226-evm"), findPowerRails("testdata/hwmon/ina3221-rails")...)
	for _, tc := range []struct{ spec, want, err string }{
		{"ina226", "ina226/1", ""},
		{"ina226/1", "ina226/1", ""},
		{"ina3221/VDD_SOC", "ina3221/VDD_SOC", ""},
		{"ina3221/2", "ina3221/VDD_CPU_GPU_CV", ""},
		{"ina3221", "", "has 3 rails: name one (found hwmon2: ina3221/VDD_IN"},
		{"ina3221/VDD_GPU", "", `has no rail "VDD_GPU"`},
		{"ina219", "", "no hwmon device is named ina219 (found hwmon1: ina226/1, hwmon2: ina3221/VDD_IN"},
		{"ina-219", "", "device name"},
	} {
		r, err := chooseRail(rails, tc.spec)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("chooseRail(%q) = %v, want an error with %q", tc.spec, err, tc.err)
		case tc.err == "" && (err != nil || r.sensor.Spec() != tc.want):
			t.Errorf("chooseRail(%q) = %s, %v; want %s", tc.spec, r.sensor.Spec(), err, tc.want)
		}
	}
	if _, err := chooseRail(nil, "ina226"); err == nil || !strings.Contains(err.Error(), "the board has no hwmon power rail") {
		t.Errorf("no rails: %v", err)
	}
}

// writeRail writes a one-rail hwmon tree under root: an INA226 whose power1_input the test rewrites.
func writeRail(t *testing.T, root string, intervalMS string) string {
	t.Helper()
	dir := filepath.Join(root, "sys/class/hwmon/hwmon0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"name": "ina226\n", "update_interval": intervalMS + "\n", "power1_input": "0000000000\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "power1_input")
}

// setPower writes µW into a power file in place, at a fixed width: the meter keeps the file open and re-reads
// it from offset 0, as sysfs is read.
func setPower(t *testing.T, path string, uw int64) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	s := []byte(padInt(uw) + "\n")
	if _, err := f.WriteAt(s, 0); err != nil {
		t.Error(err)
	}
}

func padInt(v int64) string {
	s := strconv.FormatInt(v, 10)
	for len(s) < 10 {
		if strings.HasPrefix(s, "-") {
			s = "-0" + s[1:]
		} else {
			s = "0" + s
		}
	}
	return s
}

func TestHwmonMeterHostileReadings(t *testing.T) {
	root := t.TempDir()
	file := writeRail(t, root, "10")
	rails := findPowerRails(root)
	if len(rails) != 1 {
		t.Fatalf("rails %+v", rails)
	}
	setPower(t, file, 3_000_000)
	m := startHwmonMeter(rails[0])
	defer m.close()
	window := func() protocol.EnergyReading {
		time.Sleep(50 * time.Millisecond) // the reading before the change is a fault of its own window only
		from := time.Now()
		time.Sleep(200 * time.Millisecond)
		to := time.Now()
		m.waitPast(to)
		return m.trace.Energy(from, to)
	}
	if r := window(); r.Unknown != "" || math.Abs(r.Joules/r.Seconds-3) > 1e-6 {
		t.Fatalf("steady 3 W: %+v", r)
	}
	setPower(t, file, -40_000)
	if r := window(); !strings.Contains(r.Unknown, "read -0.04") {
		t.Errorf("negative power: %+v, want it unknown naming the reading", r)
	}
	setPower(t, file, 9_000_000_000)
	if r := window(); !strings.Contains(r.Unknown, "above any board's") {
		t.Errorf("9 kW: %+v, want it unknown as absurd", r)
	}
	// a device that vanishes: its open file reads nothing, then it is gone
	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
	if r := window(); !strings.Contains(r.Unknown, "unreadable") {
		t.Errorf("empty sensor file: %+v, want it unknown as unreadable", r)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if r := window(); !strings.Contains(r.Unknown, "unreadable") {
		t.Errorf("vanished sensor: %+v, want it unknown as unreadable", r)
	}
	if err := os.WriteFile(file, []byte("0000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	setPower(t, file, 2_000_000)
	time.Sleep(50 * time.Millisecond)
	if r := window(); r.Unknown != "" || math.Abs(r.Joules/r.Seconds-2) > 1e-6 {
		t.Errorf("the sensor back at 2 W: %+v", r)
	}
}

// TestSweepEnergyFakeHwmon sweeps with the fake openssl on a board whose INA226 a goroutine drives from a model:
// 3 W at rest, 5 W once the idle rest is over. The idle power, each point's joules over its wall time and its
// µJ per byte above idle follow from the model.
func TestSweepEnergyFakeHwmon(t *testing.T) {
	root := fakeBoardRoot(t, false)
	file := writeRail(t, root, "20")
	setPower(t, file, 3_000_000)
	const idleS = 0.4
	plan := protocol.Plan{
		OpenSSL: writeFakeOpenSSL(t), Env: map[string]string{"FAKE_SIZE_SLEEP": "0.3"},
		Algorithms: []string{"aes-128-cbc"}, Modes: []string{"cpu"}, Sizes: []int{16, 16384}, Seconds: 1,
		Power: &protocol.PowerPlan{Hwmon: "ina226/1", IdleS: idleS, Windows: true},
	}
	// the model: the board draws 5 W from the moment its facts (the end of the idle rest) are written
	var out bytes.Buffer
	w := onFacts{w: &out, f: func() { setPower(t, file, 5_000_000) }}
	if _, err := sweepWith(context.Background(), plan, protocol.NewEncoder(&w), root); err != nil {
		t.Fatal(err)
	}
	var points []*protocol.Point
	var pf *protocol.PowerFacts
	for _, m := range decodeAll(t, out.Bytes()) {
		switch {
		case m.Facts != nil:
			pf = m.Facts.Power
			if pf == nil || pf.IdleW == nil || math.Abs(*pf.IdleW-3) > 0.01 || !strings.HasPrefix(pf.Source, "hwmon:ina226/1") ||
				pf.IntervalS != 0.02 || len(pf.Sensors) != 1 {
				t.Fatalf("power facts %+v", pf)
			}
		case m.Point != nil:
			points = append(points, m.Point)
		case m.Type == protocol.TypeError:
			t.Errorf("error line: %s", m.Error)
		}
	}
	if len(points) != 2 {
		t.Fatalf("%d points", len(points))
	}
	for _, p := range points {
		if p.EnergyJ == nil || p.PowerW == nil || p.Window == nil {
			t.Fatalf("point %d B: no energy (%s)", p.BlockSize, p.EnergyUnknown)
		}
		// within one sensor interval (20 ms) of the model's step at 2 W: 0.04 J
		if math.Abs(*p.EnergyJ-5*p.Window.Seconds) > 0.045 || math.Abs(*p.PowerW-*p.EnergyJ/p.Window.Seconds) > 1e-6 ||
			p.EnergySamples < 10 {
			t.Errorf("point %d B: %.4f W, %.4f J over %.3f s from %d samples; want 5 W", p.BlockSize, *p.PowerW, *p.EnergyJ,
				p.Window.Seconds, p.EnergySamples)
		}
		// above idle: 2 W over the window, for count × size bytes
		want := (*p.EnergyJ - *pf.IdleW*p.Window.Seconds) / (p.Count * float64(p.BlockSize)) * 1e6
		if p.EnergyUJPerByte == nil || math.Abs(*p.EnergyUJPerByte-want) > 1e-3*want || want < 1.8*p.Window.Seconds/(p.Count*float64(p.BlockSize))*1e6 {
			t.Errorf("point %d B: µJ/B %v, want %.4g", p.BlockSize, p.EnergyUJPerByte, want)
		}
	}
}

func TestSweepEnergyWithoutSensor(t *testing.T) {
	root := fakeBoardRoot(t, false)
	plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Algorithms: []string{"sha256"}, Modes: []string{"cpu"},
		Sizes: []int{64}, Seconds: 1, Power: &protocol.PowerPlan{Hwmon: "ina226"}}
	var out bytes.Buffer
	if _, err := sweepWith(context.Background(), plan, protocol.NewEncoder(&out), root); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, m := range decodeAll(t, out.Bytes()) {
		switch {
		case m.Facts != nil && (m.Facts.Power == nil || !strings.Contains(m.Facts.Power.Unknown, "no hwmon device is named ina226")):
			t.Errorf("facts power %+v", m.Facts.Power)
		case m.Point != nil && (m.Point.EnergyJ != nil || m.Point.EnergyUJPerByte != nil):
			t.Errorf("a point with energy from no sensor: %+v", m.Point)
		case m.Point != nil && !strings.Contains(m.Point.EnergyUnknown, "no hwmon device is named ina226"):
			t.Errorf("point %d B: energy unknown %q, want the missing sensor named", m.Point.BlockSize, m.Point.EnergyUnknown)
		case m.Type == protocol.TypeError:
			errs = append(errs, m.Error)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "the board has no hwmon power rail") {
		t.Errorf("errors %q, want one naming the missing sensor", errs)
	}
}

// onFacts calls f once, when the facts line is written.
type onFacts struct {
	w    io.Writer
	f    func()
	done bool
}

func (o *onFacts) Write(b []byte) (int, error) {
	if !o.done && bytes.Contains(b, []byte(`"type":"facts"`)) {
		o.done = true
		o.f()
	}
	return o.w.Write(b)
}
