package lab_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runPower runs lab/power/lab-power under the host's /bin/sh (POSIX, as busybox ash is on the board).
func runPower(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{filepath.Join(repoRoot(t), "lab", "power", "lab-power")}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestPowerRegisters: the registers lab-power writes for a modelled power read back, through the ina2xx
// driver's own formulas for an INA226 with its defaults (Linux 6.1 ina2xx.c: Rshunt 10000 µΩ, so current LSB
// 250 µA and power LSB 25 × 250 µW; shunt LSB 2.5 µV, bus LSB 1.25 mV), as that power within one power LSB, as
// a current × bus voltage that agrees with it, and as the shunt voltage that current makes across 10 mΩ.
func TestPowerRegisters(t *testing.T) {
	for _, mw := range []int{0, 1500, 2000, 2937, 4000, 12345} {
		t.Run(fmt.Sprint(mw, "mW"), func(t *testing.T) {
			out, err := runPower(t, "regs", fmt.Sprint(mw))
			if err != nil {
				t.Fatalf("lab-power regs %d: %v: %s", mw, err, out)
			}
			var shunt, bus, curr, power int
			if _, err := fmt.Sscanf(out, "shunt=%d bus=%d current=%d power=%d", &shunt, &bus, &curr, &power); err != nil {
				t.Fatalf("lab-power regs %d: %q: %v", mw, out, err)
			}
			powerMW := float64(power) * 25 * 250 / 1000      // power1_input µW / 1000
			currMA := math.Round(float64(curr) * 250 / 1000) // curr1_input
			busMV := math.Round(float64(bus) * 1250 / 1000)  // in1_input
			shuntMV := float64(shunt) / 400                  // in0_input before rounding
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
		})
	}
	if out, err := runPower(t, "regs", "200000"); err == nil || !strings.Contains(out, "beyond the modelled INA226's range") {
		t.Errorf("lab-power regs 200000: %v %q, want refused as out of range", err, out)
	}
}

// TestPowerModel: idle W + W per busy core, the busy share of all CPUs' time between two /proc/stat reads times
// the number of CPUs; counters that do not move or go back are no load; a busy delta beyond the total is capped.
func TestPowerModel(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"idle", []string{"2000", "1000", "2", "100", "1000", "100", "1200"}, "2000"},
		{"one of two cores busy", []string{"2000", "1000", "2", "100", "1000", "200", "1200"}, "3000"},
		{"both cores busy", []string{"2000", "1000", "2", "100", "1000", "300", "1200"}, "4000"},
		{"a quarter of one core", []string{"1500", "1500", "1", "0", "0", "25", "100"}, "1875"},
		{"no time passed", []string{"1500", "1500", "1", "50", "100", "50", "100"}, "1500"},
		{"counters went back", []string{"1500", "1500", "1", "50", "100", "10", "200"}, "1500"},
		{"busy beyond total", []string{"2000", "1000", "2", "0", "0", "500", "100"}, "4000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runPower(t, append([]string{"model"}, c.args...)...)
			if err != nil || out != c.want {
				t.Errorf("lab-power model %s = %q (%v), want %s", strings.Join(c.args, " "), out, err, c.want)
			}
		})
	}
	for _, bad := range [][]string{
		{"model", "2000", "-1", "2", "0", "0", "1", "1"},
		{"model", "2000", "1000", "2", "0", "0", "1"},
		{"regs", "1.5"},
		{"start", "0", "0x40", "/nonexistent", "2000", "1000"},
		{"start", "x", "0x40", "/nonexistent", "2000", "1000"},
		{"watts"},
	} {
		out, err := runPower(t, bad...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.HasPrefix(out, "lab-power: ") {
			t.Errorf("lab-power %s: %v %q, want exit 2 with a message", strings.Join(bad, " "), err, out)
		}
	}
}

// TestSensorVendored runs lab/lab's sensor_vendored: the vendored Linux files pass as they are (the pin in lab/lab
// is the real SHA256SUMS's); an edited file, an extra file or an edited list stops the build.
func TestSensorVendored(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := repoRoot(t)
	run := func(dir string) (string, error) {
		t.Helper()
		script := `set -euo pipefail
LAB_SRC=/nonexistent
eval "$(sed -n '/^die()/p; /^SENSOR_[A-Z0-9_]*=/p; /^sensor_vendored()/,/^}/p' "$1")"
SENSOR_VENDOR=$2
sensor_vendored`
		out, err := exec.CommandContext(ctx, "bash", "-c", script, "lab-test", filepath.Join(root, "lab", "lab"), dir).CombinedOutput()
		return string(out), err
	}
	if out, err := run(filepath.Join(root, "lab", "sensor")); err != nil {
		t.Fatalf("sensor_vendored on lab/sensor: %v: %s", err, out)
	}
	for _, c := range []struct {
		name, file, text, want string
	}{
		{"edited file", "drivers/hwmon/ina2xx.c", "/* edited */\n", "not Linux 6.1.192's files"},
		{"extra file", "drivers/hwmon/extra.c", "int x;\n", "files SHA256SUMS does not list: drivers/hwmon/extra.c"},
		{"edited list", "SHA256SUMS", "\n", "SHA256SUMS: its sha256 is"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if out, err := exec.CommandContext(ctx, "cp", "-a", filepath.Join(root, "lab", "sensor")+"/.", dir).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
			f, err := os.OpenFile(filepath.Join(dir, c.file), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(c.text); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if out, err := run(dir); err == nil || !strings.Contains(out, c.want) {
				t.Errorf("sensor_vendored with an %s: %v %q, want it refused: %q", c.name, err, out, c.want)
			}
		})
	}
}
