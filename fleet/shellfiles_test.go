package fleet

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/protocol"
)

// shellBoard is this host as a shell-path board whose sh is the given shell and whose PATH has only what the
// shell path may use (openssl and the few utilities of shellscript.go).
func shellBoard(t *testing.T, shell []string) *hostTransport {
	t.Helper()
	bin := t.TempDir()
	sh, err := exec.LookPath(shell[0])
	if err != nil {
		t.Skipf("%s not installed", shell[0])
	}
	// as sh (BusyBox runs the applet its argv[0] names)
	if err := os.Symlink(sh, filepath.Join(bin, "sh")); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"openssl", "cat", "uname", "mkdir", "rm", "sleep", "kill"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			if tool == "openssl" {
				t.Skip("openssl not installed")
			}
			continue
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return &hostTransport{home: t.TempDir(), path: bin}
}

// TestShellSessionFiles: through a real `sh -s` session (dash, BusyBox ash), binary inputs written on the board
// come back through the board's openssl as the controller's own AES and SHA-256 compute them: every byte value,
// a 64 KiB file, a command's stdin; a removed file is gone; nothing outside the session's directory is written or
// read; the directory is gone when the session ends.
func TestShellSessionFiles(t *testing.T) {
	for _, shell := range [][]string{{"dash"}, {"busybox", "sh"}} {
		t.Run(shell[0], func(t *testing.T) {
			board := shellBoard(t, shell)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			s, err := startShell(ctx, board, "test")
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			if _, err := s.probe(ctx, protocol.Plan{}, "test"); err != nil {
				t.Fatal(err)
			}
			dir := s.Dir()
			if !sessionDirRE.MatchString(dir) {
				t.Fatalf("Dir() = %q, want /tmp/fleet-sh.PID.NONCE", dir)
			}
			var every []byte
			for i := range 256 {
				every = append(every, byte(i))
			}
			every = append(every, "\n'\"$(x)\\\r\x00"...) // and what a shell would read as its own, at the end
			big := bytes.Repeat(every, 65536/len(every)+1)[:65536]
			key, iv := bytes.Repeat([]byte{7}, 16), bytes.Repeat([]byte{9}, 16)
			for _, in := range [][]byte{{0x42}, every, big} {
				inPath, outPath := dir+"/in", dir+"/out"
				if err := s.WriteFile(ctx, inPath, in); err != nil {
					t.Fatalf("write %d B: %v", len(in), err)
				}
				pad := 16 - len(in)%16
				padded := append(bytes.Clone(in), bytes.Repeat([]byte{byte(pad)}, pad)...)
				want := make([]byte, len(padded))
				blk, _ := aes.NewCipher(key)
				cipher.NewCBCEncrypter(blk, iv).CryptBlocks(want, padded)
				r, files := s.Exec(ctx, agent.RemoteExec{Argv: []string{"$fleet_o", "enc", "-aes-128-cbc", "-K", hex.EncodeToString(key),
					"-iv", hex.EncodeToString(iv), "-in", inPath, "-out", outPath}, Remove: []string{outPath}, Read: []string{outPath}})
				if r.Err != nil || r.Exit != 0 {
					t.Fatalf("enc %d B: exit %d, %v: %s", len(in), r.Exit, r.Err, r.Stderr)
				}
				if got := files[outPath]; !bytes.Equal(got, want) {
					t.Errorf("enc %d B: %d bytes back, want the %d of Go's AES-CBC", len(in), len(got), len(want))
				}
				sum := sha256.Sum256(in)
				r, _ = s.Exec(ctx, agent.RemoteExec{Argv: []string{"$fleet_o", "dgst", "-sha256", "-r"}, Stdin: in})
				if r.Err != nil || !strings.HasPrefix(r.Stdout, hex.EncodeToString(sum[:])) {
					t.Errorf("dgst of %d B on stdin: %q (%v), want %x", len(in), r.Stdout, r.Err, sum)
				}
			}
			r, files := s.Exec(ctx, agent.RemoteExec{Remove: []string{dir + "/out"}, Read: []string{dir + "/out", dir + "/in"}})
			if _, ok := files[dir+"/out"]; r.Err != nil || ok || !bytes.Equal(files[dir+"/in"], big) {
				t.Errorf("after removing out: %v, files %d, want only in", r.Err, len(files))
			}
			for _, bad := range []string{"/etc/passwd", dir + "/../x", dir + "/err", dir + "/stdin", dir, dir + "/a b", "/tmp/fleet-sh.1.00000000/x"} {
				if err := s.WriteFile(ctx, bad, []byte("x")); err == nil {
					t.Errorf("WriteFile(%q): no error", bad)
				}
				if r, _ := s.Exec(ctx, agent.RemoteExec{Read: []string{bad}}); r.Err == nil {
					t.Errorf("Exec read %q: no error", bad)
				}
			}
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s after the session: %v, want it removed", dir, err)
			}
		})
	}
}

// TestShellWatchdogLeavesNoSleep: commands that end at once (as the verification's do) neither hang the session
// nor leave a watchdog sleep behind, under dash, BusyBox ash and bash: the watchdog is stopped just as it starts.
func TestShellWatchdogLeavesNoSleep(t *testing.T) {
	for _, shell := range [][]string{{"dash"}, {"busybox", "sh"}, {"bash"}} {
		t.Run(shell[0], func(t *testing.T) {
			board := shellBoard(t, shell)
			// a watchdog length no other test uses: its sleeps are this test's
			secs := 5000 + os.Getpid()%1000 + len(shell)
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs+10)*time.Second+500*time.Millisecond)
			defer cancel()
			// a watchdog that never ends hangs the session: 2 minutes for it all
			sess, stop := context.WithTimeout(context.Background(), 2*time.Minute)
			defer stop()
			s, err := startShell(sess, board, "test")
			if err != nil {
				t.Fatal(err)
			}
			ran := make(chan error, 1)
			go func() {
				for i := range 150 {
					if r, _ := s.Exec(ctx, agent.RemoteExec{Argv: []string{"true"}}); r.Err != nil || r.Exit != 0 {
						ran <- fmt.Errorf("command %d: exit %d, %v", i, r.Exit, r.Err)
						return
					}
				}
				ran <- nil
			}()
			select {
			case err := <-ran:
				if err != nil {
					t.Fatal(err)
				}
			case <-sess.Done():
				t.Fatal("150 commands did not end in 2 minutes: a watchdog hangs the session")
			}
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			if left := killLeftProcesses("sleep\x00"+strconv.Itoa(secs)+"\x00", 2*time.Second); len(left) > 0 {
				t.Errorf("%d watchdog sleeps left after 150 commands (pids %v)", len(left), left)
			}
		})
	}
}

// TestShellSessionKeepsItsDirectory runs sessions of fast commands side by side, so that the watchdog's stop often
// reaches it before its trap is set. Under bash the watchdog killed in that window ran the session's EXIT trap it
// still held and removed the session's directory, and the next command failed with exit 1 and no output (1 to 3
// in 100 sessions on a busy machine). Every command must succeed, and the directory goes only with the session.
func TestShellSessionKeepsItsDirectory(t *testing.T) {
	// bash failed within 20 commands of each of 4 sessions; dash and ash never did, and are here to stay so
	for _, c := range []struct {
		shell              []string
		sessions, commands int
	}{{[]string{"bash"}, 4, 50}, {[]string{"dash"}, 2, 25}, {[]string{"busybox", "sh"}, 2, 25}} {
		shell, sessions, commands := c.shell, c.sessions, c.commands
		t.Run(shell[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			errs := make(chan error, sessions)
			for range sessions {
				board := shellBoard(t, shell) // one each: hostTransport records its commands unguarded
				go func() {
					s, err := startShell(ctx, board, "test")
					if err != nil {
						errs <- err
						return
					}
					for i := range commands {
						r, _ := s.Exec(ctx, agent.RemoteExec{Argv: []string{"true"}})
						if r.Err != nil || r.Exit != 0 {
							s.close()
							errs <- fmt.Errorf("command %d of a session: exit %d, %v, stderr %q", i, r.Exit, r.Err, r.Stderr)
							return
						}
					}
					dir := s.dir
					if err := s.close(); err != nil {
						errs <- err
						return
					}
					if _, err := os.Stat(dir); !os.IsNotExist(err) {
						errs <- fmt.Errorf("%s after the session: %v, want it removed", dir, err)
						return
					}
					errs <- nil
				}()
			}
			for range sessions {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// killLeftProcesses waits up to wait for every process whose /proc/PID/cmdline is cmdline to end, then kills
// those left with SIGKILL and returns their pids (none: every one ended).
func killLeftProcesses(cmdline string, wait time.Duration) []string {
	var left []string
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		left = left[:0]
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && string(b) == cmdline {
				left = append(left, filepath.Base(filepath.Dir(p)))
			}
		}
		if len(left) == 0 {
			return nil
		}
	}
	for _, pid := range left {
		if n, err := strconv.Atoi(pid); err == nil {
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
	return left
}

// TestShellSessionSweepsStaleDirs: a session killed with SIGKILL (or a board that lost power) runs no EXIT trap and
// leaves its /tmp/fleet-sh.PID.NONCE behind; the next session removes those whose PID is gone, keeps one whose PID
// lives, and leaves anything else under /tmp alone. A test session killed by its context left one each time.
func TestShellSessionSweepsStaleDirs(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.Process.Pid
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", dead)); err == nil {
		t.Skipf("pid %d was reused at once", dead)
	}
	for i, shell := range posixShells {
		t.Run(shell[0], func(t *testing.T) {
			board := shellBoardAs(t, shell)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			t.Cleanup(cancel)
			stale := fmt.Sprintf("/tmp/fleet-sh.%d.5a1e%04x", dead, i)
			live := fmt.Sprintf("/tmp/fleet-sh.%d.11fe%04x", os.Getpid(), i)
			odd := fmt.Sprintf("/tmp/fleet-sh.x%d.0dd0%04x", dead, i)
			file := fmt.Sprintf("/tmp/fleet-sh.%d.f11e%04x", dead, i)
			for _, d := range []string{stale, live, odd} {
				if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "sub", "err"), []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(d) })
			}
			if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(file) })

			s, err := startShell(ctx, board, "test")
			if err != nil {
				t.Fatal(err)
			}
			dir := s.dir
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			for path, want := range map[string]bool{stale: false, live: true, odd: true, file: true, dir: false} {
				_, err := os.Stat(path)
				if got := err == nil; got != want {
					t.Errorf("%s after a session: exists %v, want %v (%v)", path, got, want, err)
				}
			}
		})
	}
}

// TestShellSessionCancelledLeavesNoDir: a session whose context ends (Ctrl-C, a deadline) is stopped with SIGTERM,
// as the transports do, so its EXIT trap removes its directory.
func TestShellSessionCancelledLeavesNoDir(t *testing.T) {
	for _, shell := range posixShells {
		t.Run(shell[0], func(t *testing.T) {
			board := shellBoardAs(t, shell)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := startShell(ctx, board, "test")
			if err != nil {
				t.Fatal(err)
			}
			dir := s.dir
			cancel()
			t.Logf("close: %v", s.close())
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s after the session's context ended: %v, want it removed", dir, err)
			}
		})
	}
}
