package sshlab

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
)

// needSSH skips when the system ssh client, which these tests use, is missing.
func needSSH(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ssh", "ssh-keyscan"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found (apt-get install openssh-client)", tool)
		}
	}
}

// sshOut runs a command on a board with the system ssh client.
func sshOut(t *testing.T, l *Lab, board string, remote ...string) (string, error) {
	t.Helper()
	out, err := l.SSH(board, remote...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// waitNoProcs fails unless the board runs nothing but its sshd within five seconds.
func waitNoProcs(t *testing.T, b *Board) {
	t.Helper()
	if procs, err := b.WaitIdle(5 * time.Second); err != nil || len(procs) > 0 {
		t.Errorf("%s still runs %v (%v)", b.Name, procs, err)
	}
}

func TestLabBoards(t *testing.T) {
	needSSH(t)
	for _, loopback := range []bool{false, true} {
		t.Run(fmt.Sprintf("loopback=%v", loopback), func(t *testing.T) {
			if !loopback && os.Geteuid() != 0 {
				t.Skip("network namespaces need root")
			}
			l := Start(t, Options{Loopback: loopback})
			if got, want := l.Namespaced, !loopback; got != want {
				t.Fatalf("Namespaced = %v, want %v", got, want)
			}
			for _, b := range l.Boards {
				out, err := sshOut(t, l, b.Name, `printf '%s|%s|' "$(id -un)" "$HOME"; ls -A /tmp | wc -l`)
				if err != nil {
					t.Fatalf("ssh %s: %v: %s\nsshd log: %s", b.Name, err, out, b.Log())
				}
				want := fmt.Sprintf("%s|%s|", b.User, b.Home)
				if !strings.HasPrefix(out, want) {
					t.Errorf("%s: user|home| = %q, want %q…", b.Name, out, want)
				}
				if l.root && !strings.HasSuffix(out, "|0") {
					t.Errorf("%s: /tmp is not a fresh private tmpfs: %q", b.Name, out)
				}
				if b.PID() <= 0 {
					t.Errorf("%s: PID() = %d", b.Name, b.PID())
				}
			}
			if l.root {
				if got := l.Board("board2").User; got != "fleetlab" {
					t.Errorf("board2 logs in as %q, want the non-root fleetlab", got)
				}
			}
			if b4 := l.Board("board4"); b4.ProxyJump == "" || !strings.Contains(l.BoardsTOML(), "proxy_jump = ") {
				t.Errorf("board4 has no proxy jump: %q", b4.ProxyJump)
			}
			if l.Namespaced {
				if out, err := l.SSH("board4", "-o", "ProxyJump=none", "-o", "ConnectTimeout=3", "true").CombinedOutput(); err == nil {
					t.Errorf("board4 reachable without jumping through board1: %s", out)
				}
			}

			// board1 offers ECDSA and ed25519; known_hosts pins ed25519 only.
			b1 := l.Board("board1")
			keys, err := exec.Command("ssh-keyscan", "-p", fmt.Sprint(b1.Port), b1.Addr).Output()
			if err != nil {
				t.Fatalf("ssh-keyscan board1: %v", err)
			}
			for _, typ := range []string{"ssh-ed25519", "ecdsa-sha2-nistp256"} {
				if !strings.Contains(string(keys), typ) {
					t.Errorf("board1 does not offer %s:\n%s", typ, keys)
				}
			}
			kh, _ := os.ReadFile(l.KnownHosts)
			if strings.Contains(string(kh), "ecdsa") || strings.Count(string(kh), "ssh-ed25519") != len(l.Boards) {
				t.Errorf("known_hosts should pin one ed25519 key per board and no ECDSA key:\n%s", kh)
			}

			inv, err := inventory.Parse("sshlab.toml", []byte(l.BoardsTOML()))
			if err != nil {
				t.Fatalf("BoardsTOML does not parse: %v\n%s", err, l.BoardsTOML())
			}
			for _, b := range l.Boards {
				found := false
				for _, ib := range inv.Boards() {
					if ib.Name == b.Name {
						found = true
						if ib.Host != b.Addr || ib.Port != b.Port || ib.User != b.User || ib.ProxyJump != b.ProxyJump {
							t.Errorf("inventory %s = %+v, want %s@%s:%d jump %q", b.Name, ib, b.User, b.Addr, b.Port, b.ProxyJump)
						}
					}
				}
				if !found {
					t.Errorf("BoardsTOML lacks %s", b.Name)
				}
			}
			for _, b := range l.Boards {
				waitNoProcs(t, b)
			}
		})
	}
}

func TestLabFaults(t *testing.T) {
	needSSH(t)
	l := Start(t, Options{})
	b3 := l.Board("board3")

	// A process left running by a session shows among the board's processes; Exec sees the board's PID space.
	if out, err := sshOut(t, l, "board3", "sleep 30 >/dev/null 2>&1 </dev/null & echo started"); err != nil || out != "started" {
		t.Fatalf("start background sleep: %v: %s", err, out)
	}
	procs, err := b3.Processes()
	if err != nil || !strings.Contains(fmt.Sprint(procs), "sleep 30") {
		t.Errorf("Processes() = %v, %v; want the leftover sleep", procs, err)
	}
	if l.root {
		out, err := b3.Exec("ps", "-e", "-o", "pid=,args=")
		if err != nil || !strings.Contains(string(out), "sleep 30") || strings.Contains(string(out), "go test") {
			t.Errorf("Exec(ps) = %v:\n%s\nwant the board's processes only", err, out)
		}
	}

	// A cut link: the connection attempt times out; restored, it works again.
	if err := b3.CutLink(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := l.SSH("board3", "-o", "ConnectTimeout=2", "true").CombinedOutput(); err == nil {
		t.Errorf("ssh over a cut link succeeded: %s", out)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("ssh over a cut link failed after %v: want a timeout, not a refusal", d)
	}
	if err := b3.RestoreLink(); err != nil {
		t.Fatal(err)
	}
	if out, err := sshOut(t, l, "board3", "true"); err != nil {
		t.Errorf("ssh after RestoreLink: %v: %s", err, out)
	}

	// A killed sshd refuses connections and takes its sessions' leftovers with it; restarted, it serves again.
	if err := b3.KillSSHD(); err != nil {
		t.Fatal(err)
	}
	if b3.PID() != 0 {
		t.Errorf("PID() after KillSSHD = %d, want 0", b3.PID())
	}
	if out, err := l.SSH("board3", "true").CombinedOutput(); err == nil || !strings.Contains(string(out), "refused") {
		t.Errorf("ssh to a killed sshd = %v: %s; want connection refused", err, out)
	}
	if l.root {
		for _, p := range procs {
			// A zombie has an empty command line: dead, if not yet reaped.
			if args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID)); strings.Contains(string(args), "sleep") {
				t.Errorf("leftover %v survived the board's sshd", p)
			}
		}
	}
	if err := b3.StartSSHD(); err != nil {
		t.Fatal(err)
	}
	if out, err := sshOut(t, l, "board3", "true"); err != nil {
		t.Errorf("ssh after StartSSHD: %v: %s", err, out)
	}

	// A changed host key is refused by a strict client.
	if err := b3.ChangeHostKey(); err != nil {
		t.Fatal(err)
	}
	if out, err := l.SSH("board3", "true").CombinedOutput(); err == nil || !strings.Contains(string(out), "IDENTIFICATION HAS CHANGED") {
		t.Errorf("ssh after ChangeHostKey = %v: %s; want a host key change refused", err, out)
	}
	if out, err := sshOut(t, l, "board4", "true"); err != nil {
		t.Errorf("ssh board4 through board1: %v: %s", err, out)
	}
}

// TestLabCleanup checks that a finished lab leaves nothing behind, and that Start removes a dead process's lab.
func TestLabCleanup(t *testing.T) {
	needSSH(t)
	if os.Geteuid() != 0 {
		t.Skip("namespaces need root")
	}
	var l *Lab
	t.Run("lab", func(t *testing.T) { l = Start(t, Options{}) })
	if l == nil {
		t.Fatal("Start did not return a lab")
	}
	netns, _ := exec.Command("ip", "netns", "list").Output()
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	if strings.Contains(string(netns), l.id+"-") || strings.Contains(string(links), strings.TrimPrefix(l.id, "fleet")) {
		t.Errorf("lab %s left namespaces or links:\n%s\n%s", l.id, netns, links)
	}
	if _, err := os.Stat(l.Dir); !os.IsNotExist(err) {
		t.Errorf("lab dir %s left behind (%v)", l.Dir, err)
	}
	for _, p := range allPIDs() {
		if args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); strings.Contains(string(args), l.Dir) {
			t.Errorf("process %d left behind: %s", p, args)
		}
	}

	// The leftovers of a test binary that died: a namespace with a process in it, a bridge, a directory.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	ns, br, dir := fmt.Sprintf("fleet%dx1-b1", pid), fmt.Sprintf("flbr%dx1", pid), fmt.Sprintf("/var/tmp/fleet-sshlab-%d-stale", pid)
	if err := ip("netns", "add", ns); err != nil {
		t.Fatal(err)
	}
	if err := ip("link", "add", br, "type", "bridge"); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dir, 0o755)
	sleeper := exec.Command("ip", "netns", "exec", ns, "sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	t.Run("stale", func(t *testing.T) { Start(t, Options{}) })
	netns, _ = exec.Command("ip", "netns", "list").Output()
	links, _ = exec.Command("ip", "-o", "link", "show").Output()
	if strings.Contains(string(netns), ns) || strings.Contains(string(links), br+":") {
		t.Errorf("stale %s or %s not removed:\n%s\n%s", ns, br, netns, links)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("stale %s not removed", dir)
	}
	if err := sleeper.Wait(); err == nil {
		t.Errorf("process in the stale namespace was not killed")
	}
}

func TestLabDropbear(t *testing.T) {
	needSSH(t)
	l := Start(t, Options{Dropbear: true})
	b5 := l.Board("board5")
	if b5 == nil || b5.Server != "dropbear" {
		t.Fatalf("board5 = %+v, want a dropbear board", b5)
	}
	out, err := sshOut(t, l, "board5", `printf '%s|%s' "$(id -un)" "$HOME"`)
	if err != nil {
		t.Fatalf("ssh board5: %v: %s\ndropbear log: %s", err, out, b5.Log())
	}
	if want := "root|" + b5.Home; out != want {
		t.Errorf("board5: user|home = %q, want %q", out, want)
	}
	// ssh-keyscan prints the server's banner as a comment: it is Dropbear's, offering the pinned ed25519 key.
	keys, err := exec.Command("ssh-keyscan", "-t", "ed25519", "-p", fmt.Sprint(b5.Port), b5.Addr).CombinedOutput()
	if err != nil || !strings.Contains(string(keys), "SSH-2.0-dropbear") || !strings.Contains(string(keys), "ssh-ed25519") {
		t.Errorf("ssh-keyscan board5 = %v:\n%s\nwant a Dropbear banner and an ed25519 key", err, keys)
	}
	if !strings.Contains(l.BoardsTOML(), "[boards.board5]") {
		t.Errorf("BoardsTOML lacks board5")
	}
	waitNoProcs(t, b5)
}
