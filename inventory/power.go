package inventory

import (
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// A board's power source for energy per point: power = "hwmon:NAME[/CHANNEL]" names a hwmon device by its
// name file and a rail by its label or number (`fleet boards check` lists the rails a board has), which the
// agent samples on the board; power_command = "…" is a lab meter's command line, run on the controller by
// sh -c around each point, that prints the board's power in watts. IIO sensors are refused until the agent
// reads them: a source that is accepted and then measures nothing would be worse than a clear refusal.

// maxPowerCommandBytes bounds power_command: a command line, not a script.
const maxPowerCommandBytes = 1024

// power checks power and power_command and returns the hwmon spec and the command.
func (b *builder) power(base []string, ctx string, power, command *string) (hwmon, cmd string) {
	at := func(key string) int { return b.ps.pos.valueAt(appendPath(base, key)...) }
	if power != nil && command != nil {
		b.ps.add(at("power_command"), ctx, "power and power_command are both set: a board has one power source "+
			"(its own sensor, power = \"hwmon:NAME/RAIL\", or a lab meter, power_command)")
		return "", ""
	}
	if power != nil {
		v := *power
		switch {
		case strings.HasPrefix(v, "hwmon:"):
			spec := strings.TrimPrefix(v, "hwmon:")
			if _, _, err := protocol.ParsePowerSpec(spec); err != nil {
				b.ps.add(at("power"), ctx, "power %q: %v", v, err)
				return "", ""
			}
			hwmon = spec
		case strings.HasPrefix(v, "iio:"):
			b.ps.add(at("power"), ctx, "power %q: IIO power sensors are not yet supported (name the rail through hwmon, "+
				"power = \"hwmon:NAME/RAIL\", or measure with a lab meter, power_command = \"…\")", v)
		default:
			b.ps.add(at("power"), ctx, "power %q: expected \"hwmon:NAME[/RAIL]\" (a hwmon device by its name, such as "+
				"\"hwmon:ina226\" or \"hwmon:ina3221/VDD_CPU\"; `fleet boards check` lists the board's rails)", v)
		}
	}
	if command != nil {
		v := *command
		switch {
		case strings.TrimSpace(v) == "":
			b.ps.add(at("power_command"), ctx, "power_command is empty (expected a command that prints watts, such as \"meter --watts\")")
		case len(v) > maxPowerCommandBytes:
			b.ps.add(at("power_command"), ctx, "power_command is %d bytes, expected at most %d", len(v), maxPowerCommandBytes)
		default:
			if msg := checkLine("power_command", v, `"meter --watts"`); msg != "" {
				b.ps.add(at("power_command"), ctx, "%s", msg)
				return "", ""
			}
			cmd = v
		}
	}
	return hwmon, cmd
}
