// Package buildtest builds the module's commands for the tests and benchmarks that run them as a user would
// (e2e, lab, bench, the agent's process tests): one way to build, so that the Go build cache serves every one
// after the first, and the binaries tested are built like the ones shipped.
package buildtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Module is the import path of this module: packages are built by it, so that a build works from any
// directory of the module (a test runs in its package's).
const Module = "github.com/fleetlab/fleet"

// StrippedFlags are the go build flags of every binary built here but the agent: no local paths, symbol
// table or DWARF, as fleet ships its binaries. The agent adds its own (agent.BuildFlags), passed to Agent.
var StrippedFlags = []string{"-trimpath", "-ldflags=-s -w"}

// Build builds the packages pkgs (import paths) into dir, each binary named after its package's last element,
// with env added to the environment and StrippedFlags. The error holds the go command's output. It takes no
// testing.T, for the benchmarks' own main packages.
func Build(dir string, env []string, pkgs ...string) error {
	return BuildWith(dir, env, StrippedFlags, pkgs...)
}

// BuildWith is Build with the go build flags given: the agent's are agent.BuildFlags, which this package
// cannot import (the agent's own tests build with it).
func BuildWith(dir string, env, flags []string, pkgs ...string) error {
	args := append(append(append([]string{"build"}, flags...), "-o", dir+string(os.PathSeparator)), pkgs...)
	cmd := exec.Command(goCommand(), args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %v: %w\n%s", pkgs, err, out)
	}
	return nil
}

// BinaryIn builds pkg into dir and returns the binary's path; a failed build fails t.
func BinaryIn(t testing.TB, dir, pkg string, env ...string) string {
	t.Helper()
	if err := Build(dir, env, pkg); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.Base(pkg))
}

// Binary builds pkg into a temporary directory of t (removed when t ends) and returns the binary's path.
func Binary(t testing.TB, pkg string, env ...string) string {
	t.Helper()
	return BinaryIn(t, t.TempDir(), pkg, env...)
}

// Fleet builds the fleet CLI.
func Fleet(t testing.TB) string {
	t.Helper()
	return Binary(t, Module+"/cmd/fleet")
}

// AgentEnv is the environment fleet cross-compiles its agent in, for this machine's architecture: static,
// for Linux.
func AgentEnv() []string {
	return []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + runtime.GOARCH}
}

// Agent builds the agent exactly as fleet cross-compiles it: in AgentEnv, for this machine's architecture
// unless env says otherwise (a later GOARCH wins), with flags, which callers give as agent.BuildFlags.
func Agent(t testing.TB, flags []string, env ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := BuildWith(dir, append(AgentEnv(), env...), flags, Module+"/cmd/fleet-agent"); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "fleet-agent")
}

// goCommand is the go command of PATH, else the one of the toolchain that built the test: a test run by an
// IDE or a script may not have go on PATH.
func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
