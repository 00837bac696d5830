package main

import "testing"

// TestCPUTime: busy is user, nice, system, irq, softirq and steal of /proc/stat's cpu line, total adds idle and
// iowait; a kernel without the steal column counts it 0; a file whose first line is not the cpu line, or a
// field that is not a count, is refused rather than read as no load.
func TestCPUTime(t *testing.T) {
	for _, c := range []struct {
		name, stat  string
		busy, total int64
		bad         bool
	}{
		{name: "6.1", stat: "cpu  10 1 5 100 4 2 3 7 0 0\ncpu0 5 0 2 50 2 1 1 3 0 0\n", busy: 28, total: 132},
		{name: "no steal", stat: "cpu  10 1 5 100 4 2 3\n", busy: 21, total: 125},
		{name: "not the cpu line", stat: "intr 1 2 3 4 5 6 7 8\n", bad: true},
		{name: "too short", stat: "cpu  10 1 5\n", bad: true},
		{name: "not a count", stat: "cpu  10 1 x 100 4 2 3 7\n", bad: true},
		{name: "negative", stat: "cpu  10 1 -5 100 4 2 3 7\n", bad: true},
	} {
		busy, total, err := cpuTime([]byte(c.stat))
		if (err != nil) != c.bad || !c.bad && (busy != c.busy || total != c.total) {
			t.Errorf("%s: busy %d total %d err %v, want %d %d bad %v", c.name, busy, total, err, c.busy, c.total, c.bad)
		}
	}
}
