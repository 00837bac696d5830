package main

import (
	"time"

	"github.com/urfave/cli/v2"
)

// durationFlag reads flag name as a duration in [min, max] and checks it with check. The flags are string
// flags rather than cli.DurationFlag, whose refusal of "10y" or "abc" is a bare "parse error": the message
// here names the flag, the value, the format and the range.
func durationFlag(c *cli.Context, name string, min, max time.Duration, check func(time.Duration) error) (time.Duration, error) {
	s := c.String(name)
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, usageErr("--%s %q: not a duration: want a number and a unit of ns, us, ms, s, m or h, such as 90s, 10m "+
			"or 1h30m, from %v to %v", name, s, min, max)
	}
	if err := check(d); err != nil {
		return 0, usageErr("--%s: %w", name, err)
	}
	return d, nil
}
