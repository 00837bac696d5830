package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHelpDocumentsExitCodes(t *testing.T) {
	stdout, _, code := runFleet(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"EXIT CODES", "130", "regression found", "one or more boards failed", "run", "compare", "regress"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--no-such-flag"},
		{"no-such-command"},
		{"run"}, // no boards named
		{"run", "--boards", "local", "--sizes", "0", "--db", filepath.Join(t.TempDir(), "x.db")},
		{"run", "--boards", "loacl", "--db", filepath.Join(t.TempDir(), "x.db")},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, stderr, code := runFleet(t, args...)
			if got, want := code, exitUsage; got != want {
				t.Errorf("exit = %d, want %d; stderr:\n%s", got, want, stderr)
			}
		})
	}
}

func TestDidYouMeanOnUnknownBoard(t *testing.T) {
	_, stderr, _ := runFleet(t, "run", "--boards", "loacl", "--db", filepath.Join(t.TempDir(), "x.db"))
	if !strings.Contains(stderr, "local") {
		t.Errorf("stderr does not suggest local:\n%s", stderr)
	}
}

// TestGlobalFlagsBeforeAndAfter: --db works before and after the command name, and FLEET_DB is the fallback.
func TestGlobalFlagsBeforeAndAfter(t *testing.T) {
	dir := t.TempDir()
	for _, label := range []string{"after", "before", "env"} {
		storeSweep(t, filepath.Join(dir, label+".db"), label, map[string]float64{"cpu/16": 16000})
	}
	for _, tc := range []struct {
		name string
		args []string
		env  string
	}{
		{"after", []string{"runs", "--db", filepath.Join(dir, "after.db")}, ""},
		{"before", []string{"--db", filepath.Join(dir, "before.db"), "runs"}, ""},
		{"env", []string{"runs"}, filepath.Join(dir, "env.db")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("FLEET_DB", tc.env)
			}
			stdout, stderr, code := runFleet(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, tc.name) {
				t.Errorf("fleet runs did not read %s.db:\n%s", tc.name, stdout)
			}
		})
	}
}

func TestReadCommandsDoNotCreateADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	_, stderr, code := runFleet(t, "results", "--db", path)
	if got, want := code, exitUsage; got != want {
		t.Errorf("exit = %d, want %d", got, want)
	}
	if !strings.Contains(stderr, "no database at "+path) {
		t.Errorf("stderr = %q, want it to name the missing database", stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s was created by a read-only command", path)
	}
}
