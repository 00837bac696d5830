package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/inventory"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
	"golang.org/x/crypto/ssh"
)

// TestBoardRunsDeploy deploys a file twice to a simulated board through the controller's own code (sshtransport.Dial,
// fleet.Deploy): the board's sh runs the deploy check, the push and the verification, so the file lands in the
// board's HOME, 0700, and the second deployment finds it (0 bytes pushed). A board that matched commands by
// their text would fail as soon as the controller's scripts change.
func TestBoardRunsDeploy(t *testing.T) {
	dir, k, b := testBoard(t)
	agent := filepath.Join(dir, "agent")
	if err := os.WriteFile(agent, []byte(strings.Repeat("not an ELF, never run\n", 1000)), 0o755); err != nil {
		t.Fatal(err)
	}
	kh := filepath.Join(dir, "known_hosts")
	line := "[127.0.0.1]:" + strconv.Itoa(b.port()) + " " + string(ssh.MarshalAuthorizedKey(k.host.PublicKey()))
	if err := os.WriteFile(kh, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	board := inventory.Board{Name: "sim001", Host: "127.0.0.1", Port: b.port(), User: "fleet", IdentityFile: k.identity,
		KnownHosts: kh}
	ctx := context.Background()
	var pushed []int64
	for range 2 {
		tr, err := sshtransport.Dial(ctx, board, sshtransport.Options{Home: dir, AgentSocket: "none", ConnectTimeout: 10 * time.Second, Retries: -1})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		res, err := fleet.Deploy(ctx, tr, agent, fleet.DeployOptions{Board: "sim001"})
		tr.Close()
		if err != nil {
			t.Fatalf("deploy: %v", err)
		}
		if !strings.HasPrefix(res.RemotePath, b.agentDir()+"/agent-") {
			t.Errorf("remote path %s, want it in %s", res.RemotePath, b.agentDir())
		}
		pushed = append(pushed, res.Pushed)
	}
	if pushed[0] != 22000 || pushed[1] != 0 {
		t.Errorf("pushed %d then %d bytes, want 22000 then 0", pushed[0], pushed[1])
	}
	if got := b.bytesReceived(); got < 22000 {
		t.Errorf("board received %d bytes on stdin, want at least the agent's 22000", got)
	}
	fi, err := os.Stat(b.agentDir())
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("agent directory: %v, mode %v, want 0700", err, fi.Mode().Perm())
	}
}

// TestBoardShellIdle checks that a board's shell runs at SCHED_IDLE (policy 5, field 41 of /proc/PID/stat), below
// the simulator's SSH servers, so that 2,000 boards' shells on one CPU do not starve the servers' keepalive
// replies. Before, the shells ran at SCHED_OTHER (0) beside the servers.
func TestBoardShellIdle(t *testing.T) {
	_, k, b := testBoard(t)
	cfg := &ssh.ClientConfig{User: "fleet", HostKeyCallback: ssh.FixedHostKey(k.host.PublicKey()), Timeout: 10 * time.Second}
	key, err := os.ReadFile(k.identity)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Auth = []ssh.AuthMethod{ssh.PublicKeys(signer)}
	c, err := ssh.Dial("tcp", "127.0.0.1:"+strconv.Itoa(b.port()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The shell's own stat, read after the simulator has set its policy (it does so as soon as the shell starts).
	out, err := s.Output("sleep 0.3; cat /proc/$$/stat")
	if err != nil {
		t.Fatal(err)
	}
	st := string(out)
	f := strings.Fields(st[strings.LastIndexByte(st, ')')+1:])
	if len(f) < 39 {
		t.Fatalf("/proc/$$/stat: %q", out)
	}
	if policy := f[38]; policy != "5" { // field 41; f[0] is field 3
		t.Errorf("the board's shell runs with scheduling policy %s, want 5 (SCHED_IDLE)", policy)
	}
}

// testBoard starts one simulated board, sim001, under a fresh directory, closed when the test ends.
func testBoard(t *testing.T) (dir string, k *keys, b *fakeBoard) {
	t.Helper()
	dir = t.TempDir()
	k, err := newKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = startBoard("sim001", filepath.Join(dir, "board"), k.serverConfig(), time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	return dir, k, b
}
