package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/store"
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
		seedRun(t, filepath.Join(dir, label+".db"), label)
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

// seedRun stores one finished run labelled label, with one board and one point.
func seedRun(t *testing.T, path, label string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, store.RunInfo{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	p := agent.Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Threads: 1, Count: 1000, Seconds: 1,
		Timing: "wall", BytesPerSec: 16000, WallS: 1, UserS: 1, CPUPct: 100}
	for _, err := range []error{w.BoardStarted(ctx, "b1"), w.Point(ctx, "b1", p), w.BoardFinished(ctx, "b1", "ok", ""), w.Finish(ctx, store.RunOK)} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	app := newApp(nil, nil, nil)
	for _, tc := range []struct{ in, want string }{
		{"fleet show 3 --raw --db x.db", "fleet show --raw --db x.db 3"},
		{"fleet --db x.db show 3 --board b1", "fleet --db x.db show --board b1 3"},
		{"fleet import --board b a.txt b.txt --dry-run", "fleet import --board b --dry-run a.txt b.txt"},
		{"fleet boards check --all --db=x.db", "fleet boards check --all --db=x.db"},
		{"fleet show 3 -- --raw", "fleet show 3 -- --raw"},
		{"fleet nosuch 3 --raw", "fleet nosuch 3 --raw"},
		{"fleet run --boards local --accept-new --seconds 1 --algorithms a", "fleet run --boards local --accept-new --seconds 1 --algorithms a"},
		{"fleet boards check --all x --db y", "fleet boards check --all --db y x"},
	} {
		if got := strings.Join(flagsFirst(app, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("flagsFirst(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
