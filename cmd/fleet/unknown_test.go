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
		{[]string{"db", "copi"}, `unknown command "copi" for "fleet db": did you mean "copy"? (commands:`},
		{[]string{"runz"}, `unknown command "runz" for "fleet": did you mean "run" or "runs"?`},
		{[]string{"db", "help", "nope"}, `unknown command "nope" for "fleet db"`},
		{[]string{"help", "nope"}, `unknown command "nope" for "fleet"`},
		{[]string{"boards", "nope"}, `unknown command "nope" for "fleet boards" (commands: list, check; see fleet boards --help)`},
		{[]string{"nope"}, `unknown command "nope" for "fleet" (commands: run, boards,`},
		{[]string{"--db", "x.db", "db", "migrat"}, `unknown command "migrat" for "fleet db"`},
	} {
		stdout, stderr, code := runFleet(t, tt.args...)
		if code != exitUsage || !strings.Contains(unfold(stderr), tt.want) || strings.Contains(stderr, "help topic") {
			t.Errorf("fleet %q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
		if stdout != "" {
			t.Errorf("fleet %q printed %q", tt.args, stdout)
		}
	}
	for _, args := range [][]string{{"db"}, {"boards"}, {}, {"help"}, {"db", "help"}} {
		stdout, stderr, code := runFleet(t, args...)
		if code != 0 || !strings.Contains(stdout, "COMMANDS:") {
			t.Errorf("fleet %q: exit %d, %q%q; want its help", args, code, stdout, stderr)
		}
	}
}

// TestHelpCommand: "fleet help CMD" and "fleet db help CMD" show that command's help, as CMD --help does.
func TestHelpCommand(t *testing.T) {
	for _, tt := range []struct{ args, same []string }{
		{[]string{"help", "run"}, []string{"run", "--help"}},
		{[]string{"db", "help", "copy"}, []string{"db", "copy", "--help"}},
		{[]string{"boards", "help", "list"}, []string{"boards", "list", "--help"}},
	} {
		stdout, stderr, code := runFleet(t, tt.args...)
		want, _, _ := runFleet(t, tt.same...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "NAME:") || stdout != want {
			t.Errorf("fleet %q: exit %d, stderr %q, stdout %.60q; want the help of fleet %q", tt.args, code, stderr, stdout, tt.same)
		}
	}
}

// TestUnknownFlagSuggests: a misspelt flag is answered with the nearest of the command's own flags, in fleet's
// words, on stderr with exit 2; one near nothing is only refused.
func TestUnknownFlagSuggests(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-board", "x"}, `unknown flag -board for "fleet run": did you mean "--boards"? (see fleet run --help)`},
		{[]string{"compare", "--bord", "x"}, `unknown flag -bord for "fleet compare": did you mean "--boards"?`},
		{[]string{"regress", "--basline", "nightly"}, `did you mean "--baseline"?`},
		{[]string{"history", "--algoritm", "sha256"}, `did you mean "--algorithm"?`},
		{[]string{"db", "copy", "--form", "a.db"}, `unknown flag -form for "fleet db copy": did you mean "--from"?`},
		{[]string{"--dbb", "x.db", "runs"}, `unknown flag -dbb for "fleet": did you mean "--db"? (see fleet --help)`},
		{[]string{"runs", "--zzzzzz"}, `unknown flag -zzzzzz for "fleet runs" (see fleet runs --help)`},
	} {
		stdout, stderr, code := runFleet(t, tt.args...)
		if code != exitUsage || !strings.Contains(unfold(stderr), tt.want) || stdout != "" {
			t.Errorf("fleet %q: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
		if strings.Contains(stderr, "provided but not defined") {
			t.Errorf("fleet %q: Go's flag words leak: %q", tt.args, stderr)
		}
	}
}

// TestRequiredFlagsMissing: a command run without a flag it needs says which on stderr, with a one-line usage,
// exit 2, and prints nothing on stdout (urfave/cli printed the whole help there).
func TestRequiredFlagsMissing(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"history"}, "fleet: history: missing --board and --algorithm\n" +
			"usage: fleet history --board BOARD --algorithm ALG [options] (see fleet history --help)\n"},
		{[]string{"history", "--board", "am64x"}, "fleet: history: missing --algorithm\n"},
		{[]string{"regress"}, "fleet: regress: missing --baseline\nusage: fleet regress --baseline ID [options]"},
		{[]string{"db", "copy", "--to", "x.db"}, "fleet: db copy: missing --from\n"},
	} {
		stdout, stderr, code := runFleet(t, tt.args...)
		if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("fleet %q: exit %d, stdout %.80q, stderr %q; want 2, nothing on stdout, %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
	if stdout, _, code := runFleet(t, "history", "--help"); code != 0 || !strings.Contains(stdout, "(required)") {
		t.Errorf("history --help: exit %d; want its required flags marked (required):\n%s", code, stdout)
	}
}

// unfold undoes the folding of fleet's messages at 100 columns, for tests that look for a phrase in them.

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
