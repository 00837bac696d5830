package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/store"
)

// hostileUname writes, in a directory of its own, a uname that prints a kernel release with terminal escapes
// (clear screen, retitle the window) and a 200 KB hostname, and the real uname's answer to everything else;
// it returns the directory, to put first in PATH: the local board's shell path runs it.
func hostileUname(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("uname")
	if err != nil {
		t.Skip("no uname")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in\n" +
		"-r) printf '6.1.0-evil\\033[2J\\033]0;owned\\007\\n';;\n" +
		"-n) i=0; h=hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh; while [ $i -lt 4000 ]; do printf %s $h; i=$((i+1)); done; echo;;\n" +
		"*) exec " + real + " \"$@\";;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "uname"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunHostileFacts: a board whose `uname -r` holds terminal escapes and whose hostname is 200 KB (the shell
// path on the local board, with a uname of the test's) is measured, and nothing the controller prints of it —
// run's progress and summary, boards check, show (text and JSON, where JSON escapes it), history — holds an ESC or BEL byte; run's and boards check's
// lines stay under 200 columns, and show's hostname line (capped at 255 bytes) under 320. The
// store holds the hostname capped with a marker saying how much was cut, and the kernel as the board said it.
func TestRunHostileFacts(t *testing.T) {
	needOpenSSL(t)
	t.Setenv("PATH", hostileUname(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	inv := writeShellInventory(t, dir, `agent = "shell"`, `["cpu"]`)
	outputs := map[string][]string{
		"run":          {"--inventory", inv, "run", "--boards", "local", "--profile", "shellpath", "--db", db},
		"boards check": {"--inventory", inv, "boards", "check", "--boards", "local"},
		"show":         {"--inventory", inv, "show", "--db", db, "latest"},
		"show json":    {"--inventory", inv, "show", "--db", db, "--format", "json", "latest"},
		"history":      {"--inventory", inv, "history", "--db", db, "--board", "local", "--algorithm", "aes-128-cbc", "--size", "4096"},
	}
	for _, name := range []string{"run", "show", "show json", "history", "boards check"} {
		stdout, stderr, code := runFleet(t, outputs[name]...)
		t.Logf("%s: exit %d", name, code)
		for _, out := range []struct{ which, text string }{{"stdout", stdout}, {"stderr", stderr}} {
			if strings.ContainsRune(out.text, '\x1b') || strings.ContainsRune(out.text, '\a') {
				t.Errorf("%s's %s prints the board's escapes raw:\n%q", name, out.which, firstLines(out.text, 40))
			}
			for _, l := range strings.Split(out.text, "\n") {
				// show prints every fact whole (an engine's error can be 1000 bytes): its hostname line is the one
				if strings.HasPrefix(name, "show") && !strings.Contains(l, "hostname") {
					continue
				}
				if width := map[bool]int{true: 320, false: 200}[strings.HasPrefix(name, "show")]; len(l) > width {
					t.Errorf("%s's %s has a line of %d bytes: %.120q…", name, out.which, len(l), l)
					break
				}
			}
		}
		if name == "run" && code != 0 {
			t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%.4000s", code, stdout, stderr)
		}
		if want := `Linux 6.1.0-evil\x1b[2J\x1b]0;owned\a`; (name == "run" || name == "boards check") &&
			!strings.Contains(stdout+stderr, want) {
			t.Errorf("%s does not show the kernel release as %s:\n%s", name, want, stdout+stderr)
		}
	}
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v, %v", runs, err)
	}
	brs, err := s.BoardRuns(context.Background(), runs[0].ID)
	if err != nil || len(brs) != 1 || brs[0].Facts == nil {
		t.Fatalf("board runs: %+v, %v", brs, err)
	}
	f := brs[0].Facts
	if want := strings.Repeat("h", 255) + "…(199,745 more bytes)"; f.Hostname != want {
		t.Errorf("stored hostname: %d bytes %.300q, want %q", len(f.Hostname), f.Hostname, want)
	}
	if want := "6.1.0-evil\x1b[2J\x1b]0;owned\x07"; f.Kernel != want {
		t.Errorf("stored kernel %q, want %q (capped only for length; printing makes it harmless)", f.Kernel, want)
	}
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], "\n")
}
