package main

import (
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/internal/textfit"
)

// TestHelpFitsEveryCommand: the help of fleet and of every command and subcommand fits 100 columns, and each
// flag says one default at most — never urfave/cli's own beside the one the usage states, and no
// "(default: false)" for a switch.
func TestHelpFitsEveryCommand(t *testing.T) {
	var paths [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string(nil), prefix...), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, newApp(strings.NewReader(""), io.Discard, io.Discard).Commands)
	paths = append(paths, nil)
	if len(paths) < 17 {
		t.Fatalf("found %d commands, want fleet's 17 or more", len(paths))
	}
	for _, p := range paths {
		stdout, stderr, code := runFleet(t, append(p, "--help")...)
		if code != 0 || stderr != "" {
			t.Errorf("fleet %s --help: exit %d, stderr %q", strings.Join(p, " "), code, stderr)
		}
		for i, l := range strings.Split(stdout, "\n") {
			if w := textfit.Width(l); w > 100 {
				t.Errorf("fleet %s --help line %d: %d columns: %q", strings.Join(p, " "), i+1, w, l)
			}
		}
		// a flag's entry with its folded continuation lines, as one text
		for _, entry := range flagEntries(stdout) {
			if n := strings.Count(entry, "(default"); n > 1 || strings.Contains(entry, "(default: false)") {
				t.Errorf("fleet %s --help: %q says %d defaults", strings.Join(p, " "), entry, n)
			}
		}
	}
}

// flagEntries are the OPTIONS entries of a help text, each with its continuation lines joined.
func flagEntries(help string) []string {
	_, opts, _ := strings.Cut(help, "OPTIONS:\n")
	var out []string
	for _, l := range strings.Split(opts, "\n") {
		switch t := strings.TrimSpace(l); {
		case strings.HasPrefix(t, "-"):
			out = append(out, t)
		case t != "" && len(out) > 0:
			out[len(out)-1] += " " + t
		}
	}
	return out
}
