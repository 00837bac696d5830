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
	dir := t.TempDir()
	k, err := newKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := startBoard("sim001", filepath.Join(dir, "board"), k.serverConfig(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
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
