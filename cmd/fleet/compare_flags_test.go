package main

import (
	"strings"
	"testing"
)

// TestCompareRefusesRepeatedFlags: every single-valued flag of compare given twice is a usage error naming the
// flag and both values, exit 2, never the last value silently; list flags given twice add up.
func TestCompareRefusesRepeatedFlags(t *testing.T) {
	db := goldenDB(t)
	for _, args := range [][]string{
		{"--run", "1", "--run", "2"},
		{"-r", "1", "-r", "2"},
		{"--run=1", "--run=2"},
		{"--unit", "MB/s", "--unit", "kB/s"},
		{"--format", "text", "--format", "json"},
		{"--at-size", "16", "--at-size", "16384"},
		{"--reference", "a", "--reference", "b"},
		{"--reference", "a", "--reference-board", "x", "--reference-board", "y"},
	} {
		flag := "" // the flag given twice: the last one
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				flag = strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
			}
		}
		if flag == "r" {
			flag = "run"
		}
		_, stderr, code := runFleet(t, append([]string{"compare", "--db", db}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "--"+flag+" given twice") {
			t.Errorf("compare %v: exit %d, stderr %q; want 2 and --%s given twice", args, code, stderr, flag)
		}
	}
	out, stderr, code := runFleet(t, "compare", "--db", db, "--boards", "am64x", "--boards", "imx6q")
	if code != 0 || !strings.Contains(out, "am64x: run 2") || !strings.Contains(out, "imx6q: run 2") {
		t.Errorf("compare --boards am64x --boards imx6q: exit %d (%s), want both boards:\n%s", code, stderr, out)
	}
}
