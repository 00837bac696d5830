package main

import (
	"strings"
	"testing"
)

// TestRunCPUsFlagRefused: a --cpus that is no selection, or --cluster-threads without CPUs, is a usage error
// (exit 2) naming the flag, before any board is touched.
func TestRunCPUsFlagRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--boards", "local", "--cpus", "fast"}, `--cpus: cpus "fast": "fast" is not a CPU number`},
		{[]string{"run", "--boards", "local", "--cpus", "3-1"}, "range 3-1 runs backwards"},
		{[]string{"run", "--boards", "local", "--cpus", ""}, "--cpus: empty"},
		{[]string{"run", "--boards", "local", "--cluster-threads"}, "--cluster-threads needs --cpus"},
	} {
		_, stderr, code := runFleet(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("fleet %q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
