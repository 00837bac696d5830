package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// sshTransfer is the bytes per transfer of the mode ssh tests: large enough to be timed after the handshake,
// small enough for five ciphers × two directions × two boards on a shared machine.
const sshTransfer = "8388608" // 8 MiB

// TestSSHModeEveryDefaultCipher: --modes ssh on two real OpenSSH boards, one reached directly and one through a
// ProxyJump host, measures every default cipher both ways, with the negotiated cipher and MAC read back from the
// connection, the board's and the controller's CPU, and the jump host named on board4's points.
func TestSSHModeEveryDefaultCipher(t *testing.T) {
	longCase(t)
	w, _ := labWorld(t, sshlab.Options{})
	r := w.fleet("run", "--boards", "board3,board4", "--agent", agentBin, "--modes", "ssh", "--sizes", sshTransfer)
	if r.code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	if !strings.Contains(r.stderr, "whole chain") {
		t.Errorf("no word that board4's figures are those of the whole ProxyJump chain\n%s", r.stderr)
	}
	db := w.openDB()
	ms := w.measurements(db, store.Filter{})
	got := map[string][]string{}
	for _, m := range ms {
		p := m.Point
		if p.Mode != protocol.ModeSSH || p.Failed {
			t.Errorf("%s: unexpected point %s %s %s failed=%v %s", m.Board, p.Mode, p.Algorithm, p.Op, p.Failed, p.Error)
			continue
		}
		got[m.Board] = append(got[m.Board], p.Algorithm+" "+p.Op)
		if p.BlockSize != 8<<20 || p.Count != 8<<20 || p.BytesPerSec <= 0 || p.Seconds <= 0 {
			t.Errorf("%s %s %s: size %d, count %v, %v B/s over %v s", m.Board, p.Algorithm, p.Op, p.BlockSize, p.Count, p.BytesPerSec, p.Seconds)
		}
		if !strings.HasPrefix(p.Driver, p.Algorithm+", ") {
			t.Errorf("%s %s: negotiated %q, want the cipher first", m.Board, p.Algorithm, p.Driver)
		}
		if p.CPUPct <= 0 {
			t.Errorf("%s %s %s: board CPU %v %%, want the board's /proc/stat over the transfer", m.Board, p.Algorithm, p.Op, p.CPUPct)
		}
		if !slices.ContainsFunc(p.Flags, func(f string) bool { return strings.HasPrefix(f, protocol.FlagControllerCPU) }) {
			t.Errorf("%s %s: flags %q lack the controller's CPU", m.Board, p.Algorithm, p.Flags)
		}
		jump := slices.ContainsFunc(p.Flags, func(f string) bool { return strings.HasPrefix(f, protocol.FlagProxyJump) })
		if jump != (m.Board == "board4") {
			t.Errorf("%s: proxy-jump flag %v in %q", m.Board, jump, p.Flags)
		}
	}
	for _, b := range []string{"board3", "board4"} {
		var want []string
		for _, c := range protocol.DefaultSSHCiphers {
			want = append(want, c+" upload", c+" download")
		}
		if !slices.Equal(got[b], want) {
			t.Errorf("%s measured %q, want %q", b, got[b], want)
		}
	}
	for _, c := range []string{"chacha20-poly1305@openssh.com, implicit MAC", "aes128-ctr, hmac-sha2-256-etm@openssh.com"} {
		if !slices.ContainsFunc(ms, func(m store.Measurement) bool { return m.Point.Driver == c }) {
			t.Errorf("no point negotiated %q", c)
		}
	}
}

// TestSSHModeServerWithOneCipher: a server configured with `Ciphers aes128-ctr` gives one measured cipher, and
// every other one is a skip saying the server does not offer it; the board is ok.
func TestSSHModeServerWithOneCipher(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	if err := lab.Board("board2").RestartSSHD("Ciphers aes128-ctr\n"); err != nil {
		t.Fatal(err)
	}
	r := w.fleet("run", "--boards", "board2", "--agent", agentBin, "--modes", "ssh", "--sizes", sshTransfer)
	if r.code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	db := w.openDB()
	runs := w.runs(db)
	ms := w.measurements(db, store.Filter{RunID: runs[0].ID})
	var got []string
	for _, m := range ms {
		got = append(got, m.Point.Algorithm+" "+m.Point.Op)
	}
	if want := []string{"aes128-ctr upload", "aes128-ctr download"}; !slices.Equal(got, want) {
		t.Errorf("points %q, want %q", got, want)
	}
	skips := w.boardRuns(db, runs[0].ID)["board2"].Skips
	var skipped []string
	for _, s := range skips {
		if want := "server does not offer " + s.Algorithm; !strings.HasPrefix(s.Reason, want) {
			t.Errorf("skip %s %s: reason %q, want it to start with %q", s.Mode, s.Algorithm, s.Reason, want)
		}
		skipped = append(skipped, s.Algorithm)
	}
	if want := protocol.DefaultSSHCiphers[1:]; !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
	if !regexp.MustCompile(`not measured: ssh aes256-gcm@openssh.com: server does not offer aes256-gcm@openssh.com`).MatchString(unfold(r.stderr)) {
		t.Errorf("summary does not say why aes256-gcm@openssh.com was not measured\n%s", r.stderr)
	}
}

// TestSSHModeLinkCutMidTransfer: the board's cable is pulled while the second cipher's upload streams: that
// cipher's points are stored failed with the lost connection as the cause, the first cipher's points are kept,
// and once the link is back the third cipher is measured on a fresh connection. The board ends ok with 2 failed
// points.
func TestSSHModeLinkCutMidTransfer(t *testing.T) {
	longCase(t)
	w, lab := labWorld(t, sshlab.Options{})
	b2 := lab.Board("board2")
	ciphers := "aes128-ctr,aes256-ctr,chacha20-poly1305@openssh.com"
	p := w.start("run", "--boards", "board2", "--agent", agentBin, "--modes", "ssh", "--algorithms", ciphers,
		"--sizes", "268435456") // 256 MiB: several seconds even on a fast machine
	w.waitPoints(p, "board2", 2, 3*time.Minute) // aes128-ctr both ways
	// the aes256-ctr upload is streaming once the agent's ssh-sink runs
	deadline := time.Now().Add(time.Minute)
	for {
		procs, _ := b2.Processes()
		if slices.ContainsFunc(procs, func(pr sshlab.Proc) bool { return strings.Contains(pr.Args, "ssh-sink") }) {
			break
		}
		if time.Now().After(deadline) || p.exited() {
			t.Fatalf("no ssh-sink on board2 within a minute\n%s", p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := b2.CutLink(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b2.RestoreLink() })
	w.waitPoints(p, "board2", 4, 2*time.Minute) // aes256-ctr's two, failed
	if err := b2.RestoreLink(); err != nil {
		t.Fatal(err)
	}
	r := p.wait(5 * time.Minute)
	if r.code != 0 {
		t.Errorf("want exit 0 (the board measured what it could)\n%s", r)
	}
	db := w.openDB()
	ms := w.measurements(db, store.Filter{Board: "board2"})
	var got []string
	for _, m := range ms {
		state := "ok"
		if m.Failed {
			state = "failed"
			if !strings.Contains(m.Error, "connection lost") {
				t.Errorf("%s %s failed with %q, want the lost connection named", m.Algorithm, m.Op, m.Error)
			}
		}
		got = append(got, m.Algorithm+" "+m.Op+" "+state)
	}
	want := []string{"aes128-ctr upload ok", "aes128-ctr download ok", "aes256-ctr upload failed",
		"aes256-ctr download failed", "chacha20-poly1305@openssh.com upload ok", "chacha20-poly1305@openssh.com download ok"}
	if !slices.Equal(got, want) {
		t.Errorf("points %q, want %q\n%s", got, want, r)
	}
	if !regexp.MustCompile(`board2\s+(ok|suspect|invalid)\s+6 points(, (all|\d+) invalid)?(, \d+ suspect)?, 2 failed`).MatchString(r.stderr) {
		t.Errorf("summary does not show board2 ok with 2 failed points\n%s", r.stderr)
	}
}
