package main

import (
	"slices"
	"testing"
)

func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`'uname' '-m'`, []string{"uname", "-m"}},
		{`'sh' '-c' 'printf %s "$HOME"'`, []string{"sh", "-c", `printf %s "$HOME"`}},
		{`'a'\''b' 'c d'`, []string{"a'b", "c d"}},
		{`env A='x y' B='' '/h/agent-1' 'sweep'`, []string{"env", "A=x y", "B=", "/h/agent-1", "sweep"}},
	} {
		if got := shellWords(tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("shellWords(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	if got, want := withoutEnv(shellWords(`env A='1' '/h/agent-1' 'sweep'`)), []string{"/h/agent-1", "sweep"}; !slices.Equal(got, want) {
		t.Errorf("withoutEnv = %q, want %q", got, want)
	}
}

func TestPutScriptPattern(t *testing.T) {
	// The put script as fleet/transport_ssh_put.go writes it (putScript); the fake board reads size and path from it.
	line := `umask 077; mkdir -p '/home/fake/.cache/fleet' || exit 1; t='/home/fake/.cache/fleet/agent-abc.tmp.'$$; ` +
		`if ! cat > "$t"; then rm -f "$t"; exit 1; fi; n=$(wc -c < "$t"); if [ "$((n+0))" != 3072162 ]; then rm -f "$t"; ` +
		`echo "size mismatch: wrote $n bytes, want 3072162" >&2; exit 1; fi; chmod 700 "$t" && mv -f "$t" '/home/fake/.cache/fleet/agent-abc' || { rm -f "$t"; exit 1; }`
	sm, pm := putSizeRE.FindStringSubmatch(line), putPathRE.FindStringSubmatch(line)
	if sm == nil || pm == nil {
		t.Fatalf("put script not recognised: size %q, path %q", sm, pm)
	}
	if got, want := sm[1], "3072162"; got != want {
		t.Errorf("size = %s, want %s", got, want)
	}
	if got, want := shellWords(pm[1])[0], "/home/fake/.cache/fleet/agent-abc"; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
}
