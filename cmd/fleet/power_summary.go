package main

import (
	"fmt"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
)

// powerSummary is what `fleet boards check` says under a board about energy: every power rail the probe found,
// as boards.toml names it (power = "hwmon:NAME/RAIL"), how it is read and how often, so that a user knows what
// to write; or, once, that there is none. Names and labels come from the board's sysfs and are printed safely.
func powerSummary(p *protocol.PowerFacts, indent string) []string {
	if p == nil {
		return []string{indent + "power: no power sensor found (the probe did not look: a shell path or an older agent)"}
	}
	if len(p.Sensors) == 0 {
		line := indent + "power: no power sensor found"
		if p.Unknown != "" {
			line += " (" + report.Printable(p.Unknown) + ")"
		}
		return []string{line}
	}
	out := []string{fmt.Sprintf("%spower: %d sensor rail(s); name one in boards.toml as power = \"hwmon:NAME/RAIL\":",
		indent, len(p.Sensors))}
	for _, s := range p.Sensors {
		how := fmt.Sprintf("%s channel %d, read as %s", s.Device, s.Channel, s.Reading)
		if s.IntervalMS > 0 {
			how += fmt.Sprintf(", updated every %d ms", s.IntervalMS)
		}
		out = append(out, fmt.Sprintf("%s  hwmon:%s  (%s)", indent, report.Printable(s.Spec()), report.Printable(how)))
	}
	return out
}
