package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAgentDependencies keeps the agent small and self-contained: it is cross-compiled for ARMv5 boards, so it may
// import only the standard library and golang.org/x/sys, and of this module only the pure leaves protocol, opensslspeed,
// precision (the stopping rule of adaptive repeats) and validity (the verdict on a repeat, so that the agent counts
// the repeats the controller will store as valid; validity imports only protocol).
func TestAgentDependencies(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}",
		"github.com/fleetlab/fleet/cmd/fleet-agent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	allowed := func(p string) bool {
		return p == "github.com/fleetlab/fleet/agent" || p == "github.com/fleetlab/fleet/protocol" ||
			p == "github.com/fleetlab/fleet/opensslspeed" || p == "github.com/fleetlab/fleet/cmd/fleet-agent" ||
			p == "github.com/fleetlab/fleet/precision" || p == "github.com/fleetlab/fleet/validity" ||
			p == "golang.org/x/sys" || strings.HasPrefix(p, "golang.org/x/sys/")
	}
	var n int
	for _, p := range strings.Fields(string(out)) {
		n++
		if !allowed(p) {
			t.Errorf("the agent imports %s: it may import only the standard library, golang.org/x/sys, protocol, opensslspeed, precision and validity", p)
		}
	}
	if n < 2 {
		t.Errorf("go list -deps listed %d non-standard packages (%q), want at least the agent and its main", n, out)
	}
}

// TestSharedPackagesDoNotImportAgent keeps the board-side code out of the controller's packages: store, report,
// inventory and serve read the shared types from protocol, never from agent.
func TestSharedPackagesDoNotImportAgent(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	for _, pkg := range []string{"store", "report", "inventory", "serve", "protocol", "opensslspeed"} {
		out, err := exec.Command(goBin, "list", "-deps", "github.com/fleetlab/fleet/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, p := range strings.Fields(string(out)) {
			if p == "github.com/fleetlab/fleet/agent" {
				t.Errorf("%s imports the agent package; use protocol's types", pkg)
			}
		}
	}
}

// TestAgentLeavesOutHeavyPackages: regexp and encoding/json are each about 200–330 KiB of the ARMv5 agent,
// more than its 3 MiB budget leaves (TestCrossCompileAgent); protocol.Pattern and protocol.EncodeJSON and
// DecodeJSON do their work in the agent.
func TestAgentLeavesOutHeavyPackages(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/fleetlab/fleet/cmd/fleet-agent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "regexp" || p == "regexp/syntax" || p == "encoding/json" {
			t.Errorf("the agent imports %s", p)
		}
	}
}
