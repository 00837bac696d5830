package agent

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// userHZ is the unit of /proc/stat: USER_HZ, 100 on every architecture the agent is built for.
const userHZ = 100

// statLine is one "cpu" or "cpuN" line of /proc/stat, in USER_HZ ticks.
type statLine struct {
	Name               string // cpu (all cores), cpu0, cpu1, …
	Busy, Steal, Total uint64 // busy excludes idle, iowait and steal
}

// parseProcStatLines reads every cpu line of /proc/stat: the aggregate first, then one per online core (the
// kernel lists only online cores). Guest time is already in user and nice and is not added again.
func parseProcStatLines(r io.Reader) ([]statLine, error) {
	var out []statLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		l := statLine{Name: f[0]}
		for i, s := range f[1:] {
			if i >= 8 { // guest, guest_nice
				break
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("parse /proc/stat %s field %d %q: %w", f[0], i+1, s, err)
			}
			l.Total += v
			switch i {
			case 3, 4: // idle, iowait
			case 7:
				l.Steal += v
			default:
				l.Busy += v
			}
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read /proc/stat: %w", err)
	}
	if len(out) == 0 || out[0].Name != "cpu" {
		return nil, fmt.Errorf("parse /proc/stat: no aggregate cpu line")
	}
	return out, nil
}

// parseLoadAvg returns the one-minute load average of /proc/loadavg ("0.52 0.58 0.59 1/189 12345").
func parseLoadAvg(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) < 1 {
		return 0, fmt.Errorf("parse /proc/loadavg: empty")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 || v != v || v > 1e6 {
		return 0, fmt.Errorf("parse /proc/loadavg %q: not a load", f[0])
	}
	return v, nil
}

// parseVMStatSwap returns pswpin and pswpout of /proc/vmstat; ok is false when either is missing (a kernel
// without swap support has neither).
func parseVMStatSwap(r io.Reader) (in, out int64, ok bool) {
	sc := bufio.NewScanner(r)
	var seenIn, seenOut bool
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), " ")
		if !found || k != "pswpin" && k != "pswpout" {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return 0, 0, false
		}
		if k == "pswpin" {
			in, seenIn = n, true
		} else {
			out, seenOut = n, true
		}
	}
	return in, out, seenIn && seenOut && sc.Err() == nil
}

// parseTimeInState reads cpufreq's stats/time_in_state: "frequency_kHz time" per line, time in 10 ms units.
func parseTimeInState(r io.Reader) (map[int64]uint64, error) {
	m := map[int64]uint64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("parse time_in_state line %q: want frequency and time", sc.Text())
		}
		khz, err1 := strconv.ParseInt(f[0], 10, 64)
		t, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || khz <= 0 {
			return nil, fmt.Errorf("parse time_in_state line %q: not numbers", sc.Text())
		}
		m[khz] += t
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read time_in_state: %w", err)
	}
	return m, nil
}

// belowMax is the share of the time between two time_in_state readings spent below maxKHz, and the lowest
// frequency that got any of that time; ok is false when no time passed or a counter went back (stats reset).
func belowMax(before, after map[int64]uint64, maxKHz int64) (pct float64, lowest int64, ok bool) {
	var total, below uint64
	for khz, t := range after {
		b := before[khz]
		if t < b {
			return 0, 0, false
		}
		d := t - b
		if d == 0 {
			continue
		}
		total += d
		if khz < maxKHz {
			below += d
		}
		if lowest == 0 || khz < lowest {
			lowest = khz
		}
	}
	if total == 0 {
		return 0, 0, false
	}
	return float64(below) / float64(total) * 100, lowest, true
}
