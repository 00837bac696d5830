package fleet

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// shellTimes is what the POSIX times builtin prints: the user and system CPU time of the shell, then of the
// children it has waited for (and their own waited-for children).
type shellTimes struct {
	selfUser, selfSys float64
	kidsUser, kidsSys float64
}

// total is all four: what the session has cost the board so far.
func (t shellTimes) total() float64 { return t.selfUser + t.selfSys + t.kidsUser + t.kidsSys }

// maxTimesSeconds bounds a times figure: a shell session of more than a year of CPU is not one fleet started.
const maxTimesSeconds = 366 * 24 * 3600 * 4096.0

// parseTimes reads two lines of "<min>m<sec>s <min>m<sec>s", as dash ("0m0.010000s"), BusyBox ash ("0m 0.01s" in
// some versions, "0m0.010s" in others) and bash print them; an hour field ("1h2m3.00s", zsh and ksh) is read too.
func parseTimes(s string) (shellTimes, error) {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		return shellTimes{}, fmt.Errorf("times: want 2 lines, got %d in %q", len(lines), truncate(s, 80))
	}
	var v [4]float64
	for i, l := range lines {
		a, b, err := timesPair(l)
		if err != nil {
			return shellTimes{}, fmt.Errorf("times line %d %q: %w", i+1, truncate(l, 80), err)
		}
		v[2*i], v[2*i+1] = a, b
	}
	return shellTimes{v[0], v[1], v[2], v[3]}, nil
}

// timesPair reads one line: two durations, each possibly with a space after its "m" (BusyBox).
func timesPair(l string) (float64, float64, error) {
	// join "0m 0.01s" into "0m0.01s" so that the line splits into exactly two fields
	l = strings.ReplaceAll(l, "m ", "m")
	l = strings.ReplaceAll(l, "h ", "h")
	f := strings.Fields(l)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("want two durations, got %d fields", len(f))
	}
	a, err := timesDuration(f[0])
	if err != nil {
		return 0, 0, err
	}
	b, err := timesDuration(f[1])
	if err != nil {
		return 0, 0, err
	}
	return a, b, nil
}

// timesDuration reads "[<h>h]<m>m<s>s" with a decimal point or comma (a locale's) in the seconds.
func timesDuration(d string) (float64, error) {
	rest, ok := strings.CutSuffix(d, "s")
	if !ok {
		return 0, fmt.Errorf("duration %q does not end in s", d)
	}
	hours := 0.0
	if h, r, ok := strings.Cut(rest, "h"); ok {
		v, err := strconv.ParseUint(h, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("duration %q: hours: %w", d, err)
		}
		hours, rest = float64(v), r
	}
	m, sec, ok := strings.Cut(rest, "m")
	if !ok {
		return 0, fmt.Errorf("duration %q has no minutes", d)
	}
	mins, err := strconv.ParseUint(m, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("duration %q: minutes: %w", d, err)
	}
	sec = strings.Replace(sec, ",", ".", 1)
	if sec == "" || strings.ContainsAny(sec, "+-eEinxpINFNA_") {
		return 0, fmt.Errorf("duration %q: seconds are not a plain decimal", d)
	}
	secs, err := strconv.ParseFloat(sec, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q: seconds: %w", d, err)
	}
	total := hours*3600 + float64(mins)*60 + secs
	if math.IsNaN(total) || total < 0 || total > maxTimesSeconds {
		return 0, fmt.Errorf("duration %q is out of range", d)
	}
	return total, nil
}
