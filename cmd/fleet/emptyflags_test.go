package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyFlagValuesAreRefused: a flag given an empty value (an unset CI variable) is a usage error naming the
// command and flag, never "not given": a gate must not turn off, a filter must not widen to everything.
func TestEmptyFlagValuesAreRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	if _, stderr, code := runFleet(t, "--db", db, "import", "--board", "b1", capturePath(t, "L01")); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"changes", "--fail-on-drop", ""},
		{"changes", "--since", ""},
		{"changes", "--fail-on-drop="},
		{"db", "copy", "--from", db, "--to", filepath.Join(dir, "copy.db"), "--runs", ""},
		{"db", "copy", "--from", db, "--to", filepath.Join(dir, "copy.db"), "--board", " "},
		{"results", "--board", ""},
		{"runs", "--label", ""},
	} {
		if args[0] != "db" {
			args = append([]string{"--db", db}, args...)
		}
		_, stderr, code := runFleet(t, args...)
		flag := ""
		for _, a := range args {
			if strings.HasPrefix(a, "--") {
				flag, _, _ = strings.Cut(a, "=")
			}
		}
		if code != exitUsage || !strings.Contains(stderr, flag+": empty value") {
			t.Errorf("fleet %q: exit %d, stderr %q; want 2 and %q", args, code, stderr, flag+": empty value")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "copy.db")); err == nil {
		t.Error("a refused copy created its destination")
	}
}

// TestFiltersThatMatchNothing: db copy of a run or board SRC does not have, and results of an unknown board,
// are refused naming what is missing (exit 2), before the copy's destination is created.
func TestFiltersThatMatchNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	if _, stderr, code := runFleet(t, "--db", db, "import", "--board", "b1", capturePath(t, "L01")); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	dst := filepath.Join(dir, "copy.db")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"db", "copy", "--from", db, "--to", dst, "--runs", "999"}, "--runs 999: no run 999"},
		{[]string{"db", "copy", "--from", db, "--to", dst, "--board", "nosuch"}, "--board nosuch: no run in"},
		{[]string{"results", "--board", "nosuch"}, "--board nosuch: no run in"},
	} {
		args := tt.args
		if args[0] != "db" {
			args = append([]string{"--db", db}, args...)
		}
		stdout, stderr, code := runFleet(t, args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("fleet %q: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("a refused copy created its destination")
	}
	stdout, stderr, code := runFleet(t, "--db", db, "results", "--board", "b1", "--mode", "nosuch")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "no stored points match") {
		t.Errorf("results of a known board, no point: exit %d, stdout %q, stderr %q; want 0 and a note", code, stdout, stderr)
	}
}
