package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/protocol"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// TestSSHModeLabTransfer measures ciphers both ways on a real OpenSSH board through DialCipher: the points carry
// the negotiated cipher and MAC read back from the connection, the server's version and the board's CPU from its
// agent. On the Dropbear board (where dropbear is installed) a cipher Dropbear lacks is refused by name.
func TestSSHModeLabTransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts sshd boards and builds the agent")
	}
	agentPath := labAgent(t)
	lab := sshlab.Start(t, sshlab.Options{Loopback: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := lab.Board("board3")
	tr := dialLab(t, ctx, b)
	defer tr.Close()
	res, err := Deploy(ctx, tr, agentPath, DeployOptions{Board: b.Name})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cipher, negotiated string }{
		{protocol.CipherAES128CTR, "aes128-ctr, hmac-sha2-256-etm@openssh.com"},
		{protocol.CipherChaCha20Poly1305, "chacha20-poly1305@openssh.com, implicit MAC"},
	} {
		pts, err := measureCipher(ctx, RunOptions{}, tr, res.RemotePath, tc.cipher, 4<<20, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 2 {
			t.Fatalf("%s: %d points, want upload and download", tc.cipher, len(pts))
		}
		for i, p := range pts {
			t.Logf("%s %s: %.1f MB/s in %.3f s, board %.0f %%, %s, %q", p.Algorithm, p.Op, p.BytesPerSec/1e6, p.Seconds, p.CPUPct, p.Driver, p.Flags)
			if want := []string{protocol.OpUpload, protocol.OpDownload}[i]; p.Op != want || p.Failed {
				t.Errorf("point %d: op %s failed=%v %s; want %s measured", i, p.Op, p.Failed, p.Error, want)
			}
			if p.Driver != tc.negotiated {
				t.Errorf("%s: negotiated %q, want %q", p.Op, p.Driver, tc.negotiated)
			}
			if p.Count != 4<<20 || p.BytesPerSec <= 0 || p.CPUPct <= 0 {
				t.Errorf("%s: count %v, %v B/s, board CPU %v %%", p.Op, p.Count, p.BytesPerSec, p.CPUPct)
			}
			if len(p.Flags) == 0 || !strings.HasPrefix(p.Flags[0], protocol.FlagSSHServer+"SSH-2.0-OpenSSH") {
				t.Errorf("%s: flags %q, want the server's version first", p.Op, p.Flags)
			}
		}
	}
}

// TestSSHModeCipherRefused: a server without the cipher makes DialCipher return a *sshtransport.CipherRefusedError naming it
// and what the server offers, without retrying; the board's main connection is unaffected.
func TestSSHModeCipherRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts sshd boards")
	}
	lab := sshlab.Start(t, sshlab.Options{Loopback: true})
	b := lab.Board("board3")
	if err := b.RestartSSHD("Ciphers aes128-ctr\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr, err := sshtransport.Dial(ctx, b.Inventory(), sshtransport.Options{Home: t.TempDir(), AgentSocket: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	start := time.Now()
	_, err = tr.DialCipher(ctx, protocol.CipherAES256GCM)
	var refused *sshtransport.CipherRefusedError
	if !errors.As(err, &refused) || !errors.Is(err, sshtransport.ErrCipherNotOffered) {
		t.Fatalf("DialCipher = %v, want a *sshtransport.CipherRefusedError", err)
	}
	if got, want := err.Error(), "server does not offer aes256-gcm@openssh.com (it offers aes128-ctr)"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusal took %v: retried?", d)
	}
	c, err := tr.DialCipher(ctx, protocol.CipherAES128CTR)
	if err != nil {
		t.Fatalf("the offered cipher: %v", err)
	}
	c.Close()
	if err := tr.Run(ctx, Command{Args: []string{"true"}}); err != nil {
		t.Errorf("main connection after the refusal: %v", err)
	}
}
