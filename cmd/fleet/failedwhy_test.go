package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fallbackOpenSSL is an openssl whose engine "fleetgone" is listed as available but does not load when a
// command asks for it: openssl says "Invalid engine" and measures in software, exit 0, as a real one does.
const fallbackOpenSSL = `#!/bin/sh
if [ "$1" = engine ] && [ "$2" = -t ] && [ "$3" = fleetgone ]; then
	printf '(fleetgone) fleet test engine\n     [ available ]\n'
	exit 0
fi
engine= skip=
for a do
	shift
	if [ -n "$skip" ]; then skip=; [ "$a" = fleetgone ] && engine=1 && continue; set -- "$@" -engine "$a"; continue; fi
	[ "$a" = -engine ] && skip=1 && continue
	set -- "$@" "$a"
done
[ -n "$engine" ] && echo 'Invalid engine "fleetgone"' >&2
exec openssl "$@"
`

// TestRunNamesWhyPointsFailed: a board whose only point failed (its engine did not load: the numbers are
// software's) reads partial with nothing measured, and run's summary and show say which point failed and why,
// in one line, where they said only "1 point(s) failed" and left the reason to `fleet results`.
func TestRunNamesWhyPointsFailed(t *testing.T) {
	needOpenSSL(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "openssl")
	if err := os.WriteFile(fake, []byte(fallbackOpenSSL), 0o755); err != nil {
		t.Fatal(err)
	}
	inv := writeShellInventory(t, dir, `openssl = "`+fake+`"`, `["engine:fleetgone"]`)
	db := filepath.Join(dir, "fleet.db")
	stdout, stderr, code := runFleet(t, "--inventory", inv, "run", "--boards", "local", "--profile", "shellpath", "--db", db,
		"--verify-threads", "0")
	if code != exitBoardFailed {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitBoardFailed, stdout, stderr)
	}
	const want = `1 point failed: engine:fleetgone aes-128-cbc: engine "fleetgone" did not load (openssl: "Invalid engine ` +
		`"fleetgone""); its numbers are a software fallback`
	if !strings.Contains(stderr, "partial") || !strings.Contains(stderr, want) {
		t.Errorf("run's summary does not say %q:\n%s", want, stderr)
	}
	show, serr, code := runFleet(t, "show", "--db", db, "latest")
	if code != 0 || !strings.Contains(unfold(show), want) {
		t.Errorf("show: exit %d, does not say %q:\n%s\n%s", code, want, show, serr)
	}
	for _, out := range []string{stderr, show} {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "point failed") && len([]rune(l)) > 320 {
				t.Errorf("the failure's line is %d runes: %q", len([]rune(l)), l)
			}
		}
	}
}
