package sshbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fleetlab/fleet/bench/internal/machine"
	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/internal/sshlab"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// TestBenchPush compares the first deployment of the agent (sshtransport.Dial + fleet.Deploy: $HOME, inspect,
// stream, size check, sha256 verified on the board) with scp of the same file to the same sshd board, rounds
// interleaved (fleet first in odd rounds, scp first in even ones), then a second deployment, which must push 0
// bytes. Each side's time includes its connection and handshake; wire bytes are what crossed the board's
// interface, handshakes included.
func TestBenchPush(t *testing.T) {
	smokeRun := needBench(t)
	rounds := benchRounds(t, 5, smokeRun)
	lab := sshlab.Start(t, sshlab.Options{})
	b := lab.Board("board3")
	agentPath := buildAgent(t, t.TempDir())
	fi, err := os.Stat(agentPath)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ctx := context.Background()
	cache := filepath.Join(b.Home, ".cache", "fleet")
	scpDest := filepath.Join(b.Home, "agent-scp")

	deploy := func() (time.Duration, int64, int64) {
		w0, start := wireBytes(t, b), time.Now()
		tr, err := sshtransport.Dial(ctx, b.Inventory(), sshtransport.Options{Home: home, AgentSocket: "none", Retries: -1})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		res, err := fleet.Deploy(ctx, tr, agentPath, fleet.DeployOptions{Board: b.Name})
		tr.Close()
		d := time.Since(start)
		if err != nil {
			t.Fatalf("deploy: %v", err)
		}
		return d, res.Pushed, wireBytes(t, b) - w0
	}
	scp := func() (time.Duration, int64) {
		w0, start := wireBytes(t, b), time.Now()
		out, err := exec.Command("scp", "-q", "-F", lab.SSHConfig, agentPath, b.Name+":"+scpDest).CombinedOutput()
		d := time.Since(start)
		if err != nil {
			t.Fatalf("scp: %v: %s", err, out)
		}
		return d, wireBytes(t, b) - w0
	}

	fmt.Println(machine.Describe())
	fmt.Printf("agent %d bytes; board %s (OpenSSH sshd, %s:%d, network namespace %v)\n\n", fi.Size(), b.Name, b.Addr, b.Port, b.NetNS != "")
	fmt.Printf("%-5s %-13s %8s %12s %12s\n", "round", "what", "time_s", "payload_B", "wire_B")
	var first, second, scps []float64
	for r := 1; r <= rounds; r++ {
		if err := os.RemoveAll(cache); err != nil {
			t.Fatal(err)
		}
		os.Remove(scpDest)
		doFleet := func() {
			d, pushed, wire := deploy()
			first = append(first, secs(d))
			fmt.Printf("%-5d %-13s %8.3f %12d %12d\n", r, "fleet first", secs(d), pushed, wire)
			d, pushed, wire = deploy()
			second = append(second, secs(d))
			fmt.Printf("%-5d %-13s %8.3f %12d %12d\n", r, "fleet second", secs(d), pushed, wire)
			if pushed != 0 {
				t.Errorf("second deployment pushed %d bytes, want 0", pushed)
			}
		}
		doSCP := func() {
			d, wire := scp()
			scps = append(scps, secs(d))
			fmt.Printf("%-5d %-13s %8.3f %12d %12d\n", r, "scp", secs(d), fi.Size(), wire)
		}
		if r%2 == 1 {
			doFleet()
			doSCP()
		} else {
			doSCP()
			doFleet()
		}
	}
	fmt.Printf("\nmedians over %d rounds: fleet first deployment %.3f s, scp %.3f s, ratio fleet/scp %.2f; second deployment %.3f s, 0 bytes pushed\n",
		rounds, median(first), median(scps), median(first)/median(scps), median(second))
}
