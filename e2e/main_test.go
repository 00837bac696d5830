// Package e2e drives the real fleet binary as a user would: a subprocess with real arguments, real exit codes, a
// real SQLite file and real OpenSSH sshd boards (internal/sshlab). TestMain builds the binaries once.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/internal/pgtest"
)

// Built once by TestMain, shared by every test.
var (
	fleetBin   string // the fleet controller
	agentBin   string // the real agent, for --agent (saves a cross-compile per test)
	hostileBin string // testdata/hostileagent: answers like an agent, sweeps with hostile lines
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: skipped in -short mode (builds fleet and starts sshd boards)")
		os.Exit(0)
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "fleet-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// One go build for the three: static, stripped, as the agent is shipped (the fake agent must pass the same
	// ELF check as the real one, so it is built for the host's arch like it).
	if err := buildtest.Build(dir, buildtest.AgentEnv(), buildtest.Module+"/cmd/fleet", buildtest.Module+"/cmd/fleet-agent",
		buildtest.Module+"/e2e/testdata/hostileagent"); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: build: %v\n", err)
		return 1
	}
	fleetBin = filepath.Join(dir, "fleet")
	agentBin = filepath.Join(dir, "fleet-agent")
	hostileBin = filepath.Join(dir, "hostileagent")
	return pgtest.Main(m) // m.Run, then stop the PostgreSQL server if a test started one
}
