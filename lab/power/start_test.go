package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartRefuses: start finds what is wrong before it starts anything, each with the file at fault; with the
// sensor's files right, it has asked for the 282 ms interval before it opens the bus (here, one that is not there).
func TestStartRefuses(t *testing.T) {
	stat := filepath.Join(t.TempDir(), "stat")
	writeFile(t, stat, "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 0 0 0 0\nintr 0\n")
	hwmon := func(t *testing.T) string {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "power1_input"), "0\n")
		writeFile(t, filepath.Join(dir, "update_interval"), "1\n")
		writeFile(t, filepath.Join(dir, "name"), "ina226\n")
		return dir
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, s *sensor) (procStat string)
		want  string
	}{
		{"no hwmon", func(t *testing.T, s *sensor) string {
			s.hwmon = t.TempDir()
			return stat
		}, "no power1_input (not an ina2xx hwmon device)"},
		{"interval cannot be set", func(t *testing.T, s *sensor) string {
			s.hwmon = hwmon(t)
			path := filepath.Join(s.hwmon, "update_interval")
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return stat
		}, "update_interval: cannot set"},
		{"the model's full load out of range", func(t *testing.T, s *sensor) string {
			s.hwmon, s.model.perCoreMW = hwmon(t), 20000 // 2 W + 2 × 20 W is above 40.96 W
			return stat
		}, "the model at full load (2000 mW idle + 20000 mW × 2 cores): 42000 mW is beyond the modelled INA226's range"},
		{"no /proc/stat", func(t *testing.T, s *sensor) string {
			s.hwmon = hwmon(t)
			return "/nonexistent/stat"
		}, "/nonexistent/stat"},
		{"no cpuN lines", func(t *testing.T, s *sensor) string {
			s.hwmon = hwmon(t)
			bad := filepath.Join(t.TempDir(), "stat")
			writeFile(t, bad, "cpu  1 2 3 4\nintr 0\n")
			return bad
		}, "0 cpuN lines, want 1 to 1024"},
		{"no such bus", func(t *testing.T, s *sensor) string {
			s.hwmon, s.bus = hwmon(t), 999999999
			return stat
		}, "open the SMBus: open /dev/i2c-999999999"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := sensor{addr: 0x40, model: powerModel{idleMW: 2000, perCoreMW: 1000}}
			procStat := c.setup(t, &s)
			var out bytes.Buffer
			err := start(s, procStat, &out)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("start: %v, want %q", err, c.want)
			}
			if out.Len() != 0 {
				t.Errorf("start printed %q on a failure", out.String())
			}
		})
	}
	s := sensor{bus: 999999999, addr: 0x40, hwmon: hwmon(t), model: powerModel{idleMW: 2000, perCoreMW: 1000}}
	_ = start(s, stat, io.Discard)
	if b, _ := os.ReadFile(filepath.Join(s.hwmon, "update_interval")); string(b) != "282\n" {
		t.Errorf("update_interval = %q after start, want the 282 ms it asks for", b)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
