package buildtest

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgent: the agent built for the tests is the shipped kind, a static stripped Linux executable that runs.
func TestAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	bin := Agent(t)
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
