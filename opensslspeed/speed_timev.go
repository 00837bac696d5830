package opensslspeed

import (
	"strconv"
	"strings"
)

// GNU `time -v` output after a command gives the CPU accounting of the whole openssl process.

// speedTimeV is what GNU `time -v` printed after the command.
type speedTimeV struct {
	user, sys, wall float64
	has             int // bit set: 1 user, 2 sys, 4 wall
}

func (b *speedRunBuilder) timeVLine(what, val string) {
	v, ok := speedParseDuration(val)
	if !ok {
		return
	}
	switch {
	case strings.HasPrefix(what, "User"):
		b.timeV.user, b.timeV.has = v, b.timeV.has|1
	case strings.HasPrefix(what, "System"):
		b.timeV.sys, b.timeV.has = v, b.timeV.has|2
	default:
		b.timeV.wall, b.timeV.has = v, b.timeV.has|4
	}
}

// speedParseDuration reads "15.01", "0m 15.05s", "0:15.05" or "1:02:03.5" as seconds.
func speedParseDuration(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if m, sec, ok := strings.Cut(s, "m "); ok {
		mins, err1 := strconv.ParseFloat(m, 64)
		secs, err2 := strconv.ParseFloat(strings.TrimSuffix(sec, "s"), 64)
		return mins*60 + secs, err1 == nil && err2 == nil && mins >= 0 && secs >= 0
	}
	total := 0.0
	for _, part := range strings.Split(s, ":") {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || v < 0 {
			return 0, false
		}
		total = total*60 + v
	}
	return total, total < 1e9
}
