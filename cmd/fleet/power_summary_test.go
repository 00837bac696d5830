package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestPowerSummary: boards check lists every rail the probe found as boards.toml names it, with how it is
// read; a board without one says so once, with the probe's reason; hostile sysfs labels print safely.
func TestPowerSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *protocol.PowerFacts
		want []string
	}{
		{"none", &protocol.PowerFacts{Unknown: "no hwmon power rail under /sys/class/hwmon"},
			[]string{"  power: no power sensor found (no hwmon power rail under /sys/class/hwmon)"}},
		{"not probed", nil, []string{"  power: no power sensor found (the probe did not look: a shell path or an older agent)"}},
		{"rails", &protocol.PowerFacts{Sensors: []protocol.PowerSensor{
			{Device: "hwmon1", Name: "ina226", Channel: 1, Reading: protocol.ReadingPower, IntervalMS: 2},
			{Device: "hwmon2", Name: "ina3221", Channel: 1, Label: "VDD_CORE", Reading: protocol.ReadingCurrent},
			{Device: "hwmon2", Name: "ina3221", Channel: 2, Label: "VDD\x1b[2J", Reading: protocol.ReadingCurrent},
		}}, []string{
			`  power: 3 sensor rail(s); name one in boards.toml as power = "hwmon:NAME/RAIL":`,
			"    hwmon:ina226/1  (hwmon1 channel 1, read as power, updated every 2 ms)",
			"    hwmon:ina3221/VDD_CORE  (hwmon2 channel 1, read as current×voltage)",
			`    hwmon:ina3221/VDD\x1b[2J  (hwmon2 channel 2, read as current×voltage)`,
		}},
	} {
		if got := powerSummary(tc.p, "  "); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestBoardsCheckPower: `fleet boards check` on the local board (this machine has no hwmon power rail) says
// "no power sensor found", once.
func TestBoardsCheckPower(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	for _, pattern := range []string{"power*_input", "curr*_input", "energy*_input"} {
		if m, _ := filepath.Glob(filepath.Join("/sys/class/hwmon/*", pattern)); len(m) > 0 {
			t.Skip("this machine has a hwmon power rail")
		}
	}
	stdout, stderr, code := runFleet(t, "boards", "check", "--boards", "local")
	if code != 0 && code != 3 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if n := strings.Count(stdout, "no power sensor found"); n != 1 {
		t.Errorf("%q printed %d times, want once:\n%s", "no power sensor found", n, stdout)
	}
}
