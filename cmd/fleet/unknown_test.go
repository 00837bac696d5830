package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownSubcommand: a word that is no command of a group is refused naming the group and its commands
// (exit 2), for fleet itself and every group; the group alone still shows its help.
func TestUnknownSubcommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"db", "drop"}, `unknown command "drop" for "fleet db" (commands: migrate, copy; see fleet db --help)`},
		{[]string{"boards", "nope"}, `unknown command "nope" for "fleet boards" (commands: list, check; see fleet boards --help)`},
		{[]string{"nope"}, `unknown command "nope" for "fleet" (commands: run, boards,`},
		{[]string{"--db", "x.db", "db", "migrat"}, `unknown command "migrat" for "fleet db"`},
	} {
		stdout, stderr, code := runFleet(t, tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "help topic") {
			t.Errorf("fleet %q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
		if stdout != "" {
			t.Errorf("fleet %q printed %q", tt.args, stdout)
		}
	}
	for _, args := range [][]string{{"db"}, {"boards"}, {}} {
		stdout, stderr, code := runFleet(t, args...)
		if code != 0 || !strings.Contains(stdout, "COMMANDS:") {
			t.Errorf("fleet %q: exit %d, %q%q; want its help", args, code, stdout, stderr)
		}
	}
}

// TestBaselineRunsNeedsALabel: --baseline-runs with a baseline that is one run per board (an id, previous,
// latest) is refused, exit 2, instead of being ignored; with a label it is taken.
func TestBaselineRunsNeedsALabel(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	v := map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6}
	storeSweep(t, db, "nightly", v)
	storeSweep(t, db, "", v)
	for _, b := range []string{"1", "previous", "latest"} {
		_, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", b, "--baseline-runs", "5")
		if code != exitUsage || !strings.Contains(stderr, "--baseline-runs applies to a labelled baseline") {
			t.Errorf("regress --baseline %s --baseline-runs 5: exit %d, %q; want 2", b, code, stderr)
		}
	}
	if _, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "nightly", "--baseline-runs", "5"); code == exitUsage {
		t.Errorf("regress --baseline nightly --baseline-runs 5: exit 2: %s", stderr)
	}
}
