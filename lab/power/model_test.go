package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"
)

// TestRegisters: the registers lab-power writes for a modelled power read back, through the ina2xx driver's own
// formulas for an INA226 with its defaults (Linux 6.1 ina2xx.c: Rshunt 10000 µΩ, so current LSB 250 µA and power
// LSB 25 × 250 µW; shunt LSB 2.5 µV, bus LSB 1.25 mV), as that power within one power LSB, as a current × bus
// voltage that agrees with it, and as the shunt voltage that current makes across 10 mΩ. `lab-power regs` prints
// the same words.
func TestRegisters(t *testing.T) {
	for _, mw := range []uint64{0, 1500, 2000, 2937, 4000, 12345} {
		t.Run(fmt.Sprint(mw, "mW"), func(t *testing.T) {
			r, err := registersFor(mw)
			if err != nil {
				t.Fatalf("registersFor(%d): %v", mw, err)
			}
			powerMW := float64(r.power) * 25 * 250 / 1000         // power1_input µW / 1000
			currMA := math.Round(float64(r.current) * 250 / 1000) // curr1_input
			busMV := math.Round(float64(r.bus) * 1250 / 1000)     // in1_input
			shuntMV := float64(r.shunt) / 400                     // in0_input before rounding
			if math.Abs(powerMW-float64(mw)) > 6.25 {
				t.Errorf("power1_input = %.2f mW, want %d ±6.25", powerMW, mw)
			}
			if busMV != 5000 {
				t.Errorf("in1_input = %.0f mV, want the model's 5000", busMV)
			}
			if vi := currMA * busMV / 1000; math.Abs(vi-float64(mw)) > 5+6.25 {
				t.Errorf("curr1_input × in1_input = %.1f mW, want %d (the power it reports)", vi, mw)
			}
			if want := currMA * 0.01; math.Abs(shuntMV-want) > 0.0025 {
				t.Errorf("in0_input = %.4f mV, want %.4f (the current across 10 mΩ)", shuntMV, want)
			}
			out, code := runCLI(t, "regs", fmt.Sprint(mw))
			want := fmt.Sprintf("shunt=%d bus=%d current=%d power=%d\n", r.shunt, r.bus, r.current, r.power)
			if code != 0 || out != want {
				t.Errorf("lab-power regs %d = %q (exit %d), want %q", mw, out, code, want)
			}
		})
	}
	// The words the sh model printed for these powers, so that the Go model writes what it wrote.
	if r, _ := registersFor(2937); r != (ina226{shunt: 2348, bus: 4000, current: 2348, power: 470}) {
		t.Errorf("registersFor(2937) = %+v, want the sh model's shunt=2348 bus=4000 current=2348 power=470", r)
	}
	if _, err := registersFor(200000); !errors.Is(err, errRange) {
		t.Errorf("registersFor(200000): %v, want refused as beyond the modelled INA226's range", err)
	}
	if out, code := runCLI(t, "regs", "200000"); code != 2 || !strings.Contains(out, "beyond the modelled INA226's range") {
		t.Errorf("lab-power regs 200000: exit %d %q, want refused as out of range", code, out)
	}
}

// TestModel: idle W + W per busy core, the busy share of all CPUs' time between two /proc/stat reads times the
// number of CPUs; counters that do not move or go back are no load; a busy delta beyond the total is capped. The
// cases are the sh model's, through the function and through `lab-power model`.
func TestModel(t *testing.T) {
	for _, c := range []struct {
		name string
		args [7]uint64 // IDLE_MW PER_CORE_MW NCPU BUSY0 TOTAL0 BUSY1 TOTAL1
		want uint64
	}{
		{"idle", [7]uint64{2000, 1000, 2, 100, 1000, 100, 1200}, 2000},
		{"one of two cores busy", [7]uint64{2000, 1000, 2, 100, 1000, 200, 1200}, 3000},
		{"both cores busy", [7]uint64{2000, 1000, 2, 100, 1000, 300, 1200}, 4000},
		{"a quarter of one core", [7]uint64{1500, 1500, 1, 0, 0, 25, 100}, 1875},
		{"no time passed", [7]uint64{1500, 1500, 1, 50, 100, 50, 100}, 1500},
		{"counters went back", [7]uint64{1500, 1500, 1, 50, 100, 10, 200}, 1500},
		{"total went back", [7]uint64{1500, 1500, 1, 50, 300, 60, 200}, 1500},
		{"busy beyond total", [7]uint64{2000, 1000, 2, 0, 0, 500, 100}, 4000},
		{"rounded down", [7]uint64{0, 1001, 1, 0, 0, 1, 3}, 333},
		{"rounded half up", [7]uint64{0, 1999, 1, 0, 0, 1, 2}, 1000},
		{"largest arguments", [7]uint64{999999999, 999999999, 1024, 0, 0, 999999999, 999999999}, 1024999998975},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := c.args
			m := powerModel{idleMW: a[0], perCoreMW: a[1], ncpu: a[2]}
			if got := m.mW(cpuTime{busy: a[3], total: a[4]}, cpuTime{busy: a[5], total: a[6]}); got != c.want {
				t.Errorf("mW = %d, want %d", got, c.want)
			}
			args := []string{"model"}
			for _, v := range a {
				args = append(args, fmt.Sprint(v))
			}
			if out, code := runCLI(t, args...); code != 0 || out != fmt.Sprintln(c.want) {
				t.Errorf("lab-power %s = %q (exit %d), want %d", strings.Join(args, " "), out, code, c.want)
			}
		})
	}
}

// TestParseCPULine: /proc/stat's first line as busy and total jiffies, with the fields an old kernel lacks as 0
// and guest time (already in user) not counted twice; anything else is refused.
func TestParseCPULine(t *testing.T) {
	for _, c := range []struct {
		line string
		want cpuTime
	}{
		{"cpu  10 2 30 400 5 6 7 8 90 10", cpuTime{busy: 10 + 2 + 30 + 6 + 7 + 8, total: 63 + 400 + 5}},
		{"cpu 1 2 3 4", cpuTime{busy: 6, total: 10}},
		{"cpu  0 0 0 0 0 0 0", cpuTime{}},
	} {
		got, err := parseCPULine([]byte(c.line))
		if err != nil || got != c.want {
			t.Errorf("parseCPULine(%q) = %+v, %v; want %+v", c.line, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5", "cpu 1 2 3", "cpu 1 2 -3 4", "cpu 1 2 x 4", "intr 1 2 3 4",
		"cpu 1 2 3 99999999999999999999"} {
		if got, err := parseCPULine([]byte(bad)); err == nil {
			t.Errorf("parseCPULine(%q) = %+v, want an error", bad, got)
		}
	}
}

// TestSwab: a register's word goes to the stub with its bytes swapped, as the sh model gave i2cset, because
// ina2xx reads it back with i2c_smbus_read_word_swapped.
func TestSwab(t *testing.T) {
	for _, c := range [][2]uint16{{0x1234, 0x3412}, {4000, 0xa00f}, {0x00ff, 0xff00}, {0, 0}, {0xffff, 0xffff}} {
		if got := swab(c[0]); got != c[1] {
			t.Errorf("swab(%#04x) = %#04x, want %#04x", c[0], got, c[1])
		}
		if got := swab(swab(c[0])); got != c[0] {
			t.Errorf("swab(swab(%#04x)) = %#04x", c[0], got)
		}
	}
}

// TestSMBusIoctlLayout: the ioctl's argument has C's layout of struct i2c_smbus_ioctl_data on this architecture
// (the lab's arm64 and arm build the same struct: u8, u8, u32 at 4, the data pointer at 8).
func TestSMBusIoctlLayout(t *testing.T) {
	var a smbusIoctlData
	ptr := unsafe.Sizeof(uintptr(0))
	if got := unsafe.Offsetof(a.size); got != 4 {
		t.Errorf("offset of size = %d, want 4", got)
	}
	if got := unsafe.Offsetof(a.data); got != 8 {
		t.Errorf("offset of data = %d, want 8", got)
	}
	if got, want := unsafe.Sizeof(a), 8+ptr+(8-ptr)%ptr; got != want {
		t.Errorf("sizeof = %d, want %d", got, want)
	}
	if got := unsafe.Sizeof(*a.data); got != 34 {
		t.Errorf("sizeof(union i2c_smbus_data) = %d, want 34", got)
	}
}

// TestRefusals: a bad argument is exit 2 with a "lab-power: " message naming it.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"model", "2000", "-1", "2", "0", "0", "1", "1"}, `PER_CORE_MW must be a non-negative integer, not "-1"`},
		{[]string{"model", "2000", "1000", "2", "0", "0", "1"}, "usage: lab-power model"},
		{[]string{"model", "2000", "1000", "0", "0", "0", "1", "1"}, "NCPU must be 1 to 1024, not 0"},
		{[]string{"model", "2000", "1000", "2", "0", "1234567890", "1", "1"}, "TOTAL0 is out of range: 1234567890"},
		{[]string{"regs", "1.5"}, `MW must be a non-negative integer, not "1.5"`},
		{[]string{"regs", ""}, `MW must be a non-negative integer, not ""`},
		{[]string{"start", "0", "0x40", "/nonexistent", "2000", "1000"}, "/nonexistent: no power1_input"},
		{[]string{"start", "x", "0x40", "/nonexistent", "2000", "1000"}, `BUS must be a non-negative integer, not "x"`},
		{[]string{"start", "0", "0x80", "/nonexistent", "2000", "1000"}, `ADDR must be a 7-bit I2C address`},
		{[]string{"start", "0", "0x40", "/nonexistent", "2000"}, "usage: lab-power start"},
		{[]string{"loop", "0", "0x40", "0", "2000", "1000", "2"}, "INTERVAL_MS must be 1 to 60000, not 0"},
		{[]string{"loop", "0", "0x40", "282", "2000", "1000", "0"}, "NCPU must be 1 to 1024, not 0"},
		{[]string{"loop", "999999999", "0x40", "282", "2000", "1000", "2"}, "open the SMBus: open /dev/i2c-999999999"},
		{[]string{"watts"}, `unknown command "watts"`},
		{nil, `unknown command ""`},
	} {
		out, code := runCLI(t, c.args...)
		if code != 2 || !strings.HasPrefix(out, "lab-power: ") || !strings.Contains(out, c.want) {
			t.Errorf("lab-power %s: exit %d %q, want exit 2 with %q", strings.Join(c.args, " "), code, out, c.want)
		}
	}
}

// runCLI runs lab-power in-process and returns what it printed (stdout, then stderr) and its exit code.
func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return stdout.String() + stderr.String(), code
}
