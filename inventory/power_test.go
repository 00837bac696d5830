package inventory

import (
	"strings"
	"testing"
)

func TestPowerSource(t *testing.T) {
	for _, tc := range []struct {
		name, lines string
		hwmon, cmd  string
		err         string
	}{
		{"hwmon rail", `power = "hwmon:ina3221/VDD_CPU"`, "ina3221/VDD_CPU", "", ""},
		{"hwmon device", `power = "hwmon:ina226"`, "ina226", "", ""},
		{"meter", `power_command = "meter --watts --port /dev/ttyUSB0"`, "", "meter --watts --port /dev/ttyUSB0", ""},
		{"iio", `power = "iio:device0/in_power0_raw"`, "", "", `boards.toml:3:9: board "b": power "iio:device0/in_power0_raw": IIO power sensors are not yet supported`},
		{"unknown scheme", `power = "ina226"`, "", "", `boards.toml:3:9: board "b": power "ina226": expected "hwmon:NAME[/RAIL]"`},
		{"bad name", `power = "hwmon:ina 226"`, "", "", `boards.toml:3:9: board "b": power "hwmon:ina 226": hwmon device name "ina 226"`},
		{"empty channel", `power = "hwmon:ina226/"`, "", "", `board "b": power "hwmon:ina226/": hwmon channel ""`},
		{"both", "power = \"hwmon:ina226\"\npower_command = \"m\"", "", "", `boards.toml:4:17: board "b": power and power_command are both set`},
		{"empty command", `power_command = " "`, "", "", `boards.toml:3:17: board "b": power_command is empty`},
		{"control character", `power_command = "m\u001b"`, "", "", `power_command "m\x1b" contains a control character`},
		{"long command", `power_command = "` + strings.Repeat("m", 1025) + `"`, "", "", "power_command is 1025 bytes"},
		{"not a string", `power = 3`, "", "", `boards.toml:3:9: board "b": power`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Parse("boards.toml", []byte("[boards.b]\nhost = \"10.0.0.2\"\n"+tc.lines+"\n"))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse = %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sel, err := inv.Select([]string{"b"}, nil, false)
			if err != nil || len(sel) != 1 {
				t.Fatalf("select: %v %v", sel, err)
			}
			if sel[0].PowerHwmon != tc.hwmon || sel[0].PowerCommand != tc.cmd {
				t.Errorf("power %q, power_command %q; want %q, %q", sel[0].PowerHwmon, sel[0].PowerCommand, tc.hwmon, tc.cmd)
			}
		})
	}
}
