package main

import (
	"strings"
	"testing"
)

// TestFileLimitFor: a soft limit already high enough is kept, a low one is raised to what the boards need, and
// a hard limit below it is refused, saying how many files are needed and how to allow them.
func TestFileLimitFor(t *testing.T) {
	for _, tc := range []struct {
		need, cur, max uint64
		want           uint64
		err            string
	}{
		{need: 16064, cur: 20000, max: 20000, want: 20000},
		{need: 16064, cur: 1024, max: 1 << 20, want: 16064},
		{need: 16064, cur: 1024, max: 4096, err: "need about 16064 open files, and the hard limit is 4096 (ulimit -Hn)"},
	} {
		got, err := fileLimitFor(tc.need, tc.cur, tc.max)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("fileLimitFor(%d, %d, %d) = %d, %v; want an error with %q", tc.need, tc.cur, tc.max, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("fileLimitFor(%d, %d, %d) = %d, %v; want %d", tc.need, tc.cur, tc.max, got, err, tc.want)
		}
	}
	if got, want := simFiles(2000), uint64(16064); got != want {
		t.Errorf("simFiles(2000) = %d, want %d", got, want)
	}
}

func TestCPUSplit(t *testing.T) {
	for _, tc := range []struct {
		spec, ctl, sim string
		ok             bool
	}{
		{"off", "", "", true},
		{"0/1", "0", "1", true},
		{"0-3/4-7,9", "0-3", "4-7,9", true},
		{"0", "", "", false},
		{"0/x", "", "", false},
		{"3-1/0", "", "", false},
		{"/1", "", "", false},
		{"-1/0", "", "", false},
	} {
		ctl, sim, err := cpuSplit(tc.spec)
		if (err == nil) != tc.ok || ctl != tc.ctl || sim != tc.sim {
			t.Errorf("cpuSplit(%q) = %q, %q, %v; want %q, %q, ok %v", tc.spec, ctl, sim, err, tc.ctl, tc.sim, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "-pin") {
			t.Errorf("cpuSplit(%q): %v does not name -pin", tc.spec, err)
		}
	}
	// auto splits what this process may run on: both halves or neither
	ctl, sim, err := cpuSplit("auto")
	if err != nil || (ctl == "") != (sim == "") || (ctl != "" && (!cpuList(ctl) || !cpuList(sim))) {
		t.Errorf("cpuSplit(auto) = %q, %q, %v", ctl, sim, err)
	}
}
