package buildtest

import (
	"debug/buildinfo"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/agent"
)

// TestAgent: the agent built for the tests is the shipped kind, a static stripped Linux executable that runs,
// built with the controller's flags (agent.BuildFlags, as its build info records them).
func TestAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	bin := Agent(t, agent.BuildFlags)
	if got, want := filepath.Base(bin), "fleet-agent"; got != want {
		t.Errorf("binary %s, want %s", got, want)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s := f.Section(".symtab"); s != nil {
		t.Error("agent has a symbol table: not built with -s")
	}
	if p := f.Section(".interp"); p != nil {
		t.Error("agent has an interpreter: not static")
	}
	if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
		t.Errorf("fleet-agent version: %v\n%s", err, out)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	want := map[string]string{"CGO_ENABLED": "0"}
	for _, f := range agent.BuildFlags {
		key, value, ok := strings.Cut(f, "=")
		want[key] = value
		if !ok {
			want[key] = "true" // a boolean flag, -trimpath
		}
	}
	delete(want, "-ldflags") // go does not record -ldflags under -trimpath (they may hold paths): .symtab says -s
	for key, value := range want {
		if got := settings[key]; got != value {
			t.Errorf("build setting %s = %q, want %q", key, got, value)
		}
	}
}

// TestBuildRefusesBrokenPackage: a failed build says what go said.
func TestBuildRefusesBrokenPackage(t *testing.T) {
	err := Build(t.TempDir(), nil, Module+"/no/such/package")
	if err == nil || !strings.Contains(err.Error(), "no/such/package") {
		t.Errorf("err = %v, want the go command's complaint about the package", err)
	}
}

// TestBinaryInNewDirectory: a binary built into a directory that does not exist yet lands there, named after
// its package.
func TestBinaryInNewDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fleet")
	}
	dir := filepath.Join(t.TempDir(), "new", "dir")
	if got, want := BinaryIn(t, dir, Module+"/cmd/fleet"), filepath.Join(dir, "fleet"); got != want {
		t.Errorf("BinaryIn = %s, want %s", got, want)
	}
	if out, err := exec.Command(filepath.Join(dir, "fleet"), "--version").CombinedOutput(); err != nil {
		t.Errorf("fleet --version: %v\n%s", err, out)
	}
}
