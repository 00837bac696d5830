package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// labAgent builds the real agent for the host (the lab's boards are this machine).
func labAgent(t *testing.T) string {
	t.Helper()
	if out, _ := exec.Command("uname", "-m").Output(); strings.TrimSpace(string(out)) != "x86_64" {
		t.Skip("the lab's boards run the amd64 agent")
	}
	p, err := BuildAgent(context.Background(), BuildOptions{Target: Target{GOOS: "linux", GOARCH: "amd64"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dialLab connects to a lab board with fleet's own SSH transport, strictly, ignoring the user's ~/.ssh.
func dialLab(t *testing.T, ctx context.Context, b *sshlab.Board) *sshtransport.Transport {
	t.Helper()
	tr, err := sshtransport.Dial(ctx, b.Inventory(), sshtransport.Options{Home: t.TempDir(), AgentSocket: "none", Retries: -1})
	if err != nil {
		t.Fatalf("dial %s: %v", b.Name, err)
	}
	return tr
}

// TestDeployLab deploys the real agent through sshtransport.Dial to real sshd boards: root and non-root, one offering an
// unpinned ECDSA host key, one behind a ProxyJump, and a Dropbear board where dropbear is installed.
func TestDeployLab(t *testing.T) {
	if testing.Short() {
		t.Skip("starts sshd boards and builds the agent")
	}
	agentPath := labAgent(t)
	_, size, err := fileSHA256(agentPath)
	if err != nil {
		t.Fatal(err)
	}
	lab := sshlab.Start(t, sshlab.Options{Dropbear: sshlab.DropbearInstalled()})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, b := range lab.Boards {
		t.Run(b.Name, func(t *testing.T) {
			tr := dialLab(t, ctx, b)
			defer tr.Close()
			arch, err := DetectArch(ctx, tr)
			if err != nil || arch != "amd64" {
				t.Fatalf("DetectArch(%s) = %q, %v; want amd64", b.Name, arch, err)
			}
			var log bytes.Buffer
			opts := DeployOptions{Board: b.Name, Logf: func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }}
			first, err := Deploy(ctx, tr, agentPath, opts)
			if err != nil {
				t.Fatal(err)
			}
			if first.Pushed != size || !strings.HasPrefix(first.RemotePath, b.Home+"/.cache/fleet/agent-") {
				t.Errorf("first deploy = %+v, want %d bytes pushed below %s", first, size, b.Home)
			}
			second, err := Deploy(ctx, tr, agentPath, opts)
			if err != nil || second.Pushed != 0 || !second.Skipped() {
				t.Errorf("second deploy = %+v, %v; want 0 bytes pushed", second, err)
			}
			if !strings.Contains(log.String(), "agent already on "+b.Name) {
				t.Errorf("log does not say the agent was already there:\n%s", log.String())
			}

			// The board's copy of the agent runs, and reports the checksum Deploy verified.
			var out, errb bytes.Buffer
			if err := tr.Run(ctx, Command{Args: []string{first.RemotePath, "sha256", first.RemotePath}, Stdout: &out, Stderr: &errb}); err != nil {
				t.Fatalf("agent sha256 on %s: %v: %s", b.Name, err, errb.String())
			}
			if got := firstHexSum(out.String()); got != first.SHA256 {
				t.Errorf("agent on %s says sha256 %q, want %s", b.Name, out.String(), first.SHA256)
			}

			// Corrupt the board's copy in place: the next deploy pushes it again.
			corrupt := `printf X | dd of="$1" bs=1 seek=4096 conv=notrunc 2>/dev/null`
			if err := tr.Run(ctx, Command{Args: []string{"sh", "-c", corrupt, "sh", first.RemotePath}, Stdout: &out, Stderr: &errb}); err != nil {
				t.Fatalf("corrupt agent on %s: %v: %s", b.Name, err, errb.String())
			}
			third, err := Deploy(ctx, tr, agentPath, opts)
			if err != nil || third.Pushed != size {
				t.Errorf("deploy over a corrupt copy = %+v, %v; want %d bytes pushed", third, err, size)
			}
			if err := tr.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			waitBoardIdle(t, b)
		})
	}
}

// TestDeployLabDiskFull pushes the agent to a board whose home is a 1 MiB tmpfs.
func TestDeployLabDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("starts sshd boards and builds the agent")
	}
	agentPath := labAgent(t)
	lab := sshlab.Start(t, sshlab.Options{HomeSize: "1m"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := lab.Board("board2")
	tr := dialLab(t, ctx, b)
	defer tr.Close()
	_, err := Deploy(ctx, tr, agentPath, DeployOptions{Board: b.Name})
	if err == nil {
		t.Fatal("deploy to a full disk succeeded")
	}
	t.Logf("deploy to a full disk: %v", err)
	if msg := err.Error(); !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(msg, "push agent to board2: no space left on device: ") {
		t.Errorf("deploy to a full disk = %q, want \"push agent to board2: no space left on device: …\" wrapping ENOSPC", msg)
	}
	out, err := b.Exec("ls", "-A", b.Home+"/.cache/fleet")
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("after a failed push the agent dir holds %q (%v), want nothing", out, err)
	}
}

// waitBoardIdle fails unless nothing but sshd runs on the board within five seconds: no session or agent
// outlives its operation.
func waitBoardIdle(t *testing.T, b *sshlab.Board) {
	t.Helper()
	if procs, err := b.WaitIdle(5 * time.Second); err != nil || len(procs) > 0 {
		t.Errorf("%s still runs %v (%v)", b.Name, procs, err)
	}
}
