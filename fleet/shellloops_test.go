package fleet

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/protocol"
)

// posixShells are the shells the shell path's scripts must run under.
var posixShells = [][]string{{"dash"}, {"busybox", "sh"}, {"bash", "--posix"}}

// shellBoardAs is shellBoard with sh started as shell (bash --posix needs its option: a wrapper script).
func shellBoardAs(t *testing.T, shell []string) *hostTransport {
	t.Helper()
	if len(shell) == 1 || shell[0] == "busybox" {
		return shellBoard(t, shell)
	}
	board := shellBoard(t, shell[:1])
	sh := filepath.Join(board.path, "sh")
	real, err := os.Readlink(sh)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(sh)
	// the session runs "sh -s": the wrapper makes it "bash --posix -s"
	wrapper := "#!/bin/sh\nexec " + real + " " + strings.Join(shell[1:], " ") + " \"$@\"\n"
	if err := os.WriteFile(sh, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return board
}

// concurrentOpenSSL copies testdata/shell/openssl-concurrent into a directory of its own (its lock is made
// beside it) and returns its path.
func concurrentOpenSSL(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/shell/openssl-concurrent")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "openssl")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// goodSum is the hex SHA-256 of Go's AES-128-CBC of the n-byte verification input, unpadded: what every worker's
// output must hash to.
func goodSum(n int) string {
	key := protocol.VerifyPattern(16, protocol.VerifySeedKey)
	iv := protocol.VerifyPattern(16, protocol.VerifySeedIV)
	in := protocol.VerifyPattern(n, protocol.VerifySeedPayload)
	out := make([]byte, n)
	blk, _ := aes.NewCipher(key)
	cipher.NewCBCEncrypter(blk, iv).CryptBlocks(out, in)
	sum := sha256.Sum256(out)
	return hex.EncodeToString(sum[:])
}

// loopsFor starts a session on board with openssl (its path, or "" for the board's own), writes the 4096-byte
// input and returns the session and the check's loops for aes-128-cbc.
func loopsFor(t *testing.T, ctx context.Context, board *hostTransport, openssl string, env ...string) (*shellSession, agent.RemoteLoops) {
	t.Helper()
	s, err := startShell(ctx, board, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.close() })
	if _, err := s.probe(ctx, protocol.Plan{OpenSSL: openssl}, "test"); err != nil {
		t.Fatal(err)
	}
	in := s.Dir() + "/in-4096"
	if err := s.WriteFile(ctx, in, protocol.VerifyPattern(4096, protocol.VerifySeedPayload)); err != nil {
		t.Fatal(err)
	}
	out := s.Dir() + "/conc"
	argv := []string{"$fleet_o", "enc", "-aes-128-cbc", "-e", "-K", hex.EncodeToString(protocol.VerifyPattern(16, protocol.VerifySeedKey)),
		"-iv", hex.EncodeToString(protocol.VerifyPattern(16, protocol.VerifySeedIV)), "-nopad", "-in", in, "-out", out}
	return s, agent.RemoteLoops{Argv: argv, Env: env, Out: out, Workers: 2, Seconds: 1, TimeoutS: 60, MaxRuns: 500}
}

// sums counts the workers' outputs by hash, and the lines that are not a dgst -sha256 -r line.
func sums(t *testing.T, run agent.RemoteLoopsRun) (map[string]int, int) {
	t.Helper()
	got := map[string]int{}
	n := 0
	for w, wr := range run.Workers {
		for _, line := range wr.Outputs {
			f := strings.Fields(line)
			if len(f) != 2 || len(f[0]) != 64 {
				t.Errorf("worker %d: output line %q is not dgst -sha256 -r's", w, line)
				continue
			}
			got[f[0]]++
			n++
		}
	}
	return got, n
}

// TestShellLoops: the concurrency check runs its workers in parallel inside the one session, under dash, BusyBox
// ash and bash --posix. With the system's openssl every output of every worker is Go's AES-CBC; with an openssl
// that is wrong only when two encs overlap (testdata/shell/openssl-concurrent), which the one-at-a-time checks
// never see, some outputs are not; the session serves requests after either, and the check's files are gone.
func TestShellLoops(t *testing.T) {
	want := goodSum(4096)
	for _, shell := range posixShells {
		t.Run(shell[0], func(t *testing.T) {
			board := shellBoardAs(t, shell)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			s, l := loopsFor(t, ctx, board, "")
			run := s.Loops(ctx, l)
			if run.Err != nil || run.TimedOut || len(run.Workers) != 2 {
				t.Fatalf("system openssl: err %v, timed out %v, %d workers", run.Err, run.TimedOut, len(run.Workers))
			}
			got, n := sums(t, run)
			sysRuns := n
			for w, wr := range run.Workers {
				if wr.Exit != 0 || wr.Hash != 0 || wr.Hung || len(wr.Outputs) == 0 {
					t.Errorf("system openssl: worker %d: %+v", w, wr)
				}
			}
			if got[want] != n || n == 0 {
				t.Errorf("system openssl: outputs %v, want all %d of them %s", got, n, want)
			}

			fake := concurrentOpenSSL(t)
			s2, l2 := loopsFor(t, ctx, board, fake, "FLEET_FAKE=wrong", "FLEET_FAKE_WAIT=5")
			// one at a time the fake is right: the verification's single runs would pass it
			r, files := s2.Exec(ctx, agent.RemoteExec{Argv: l2.Argv, Env: l2.Env, Read: []string{l2.Out}})
			if sum := sha256.Sum256(files[l2.Out]); r.Exit != 0 || hex.EncodeToString(sum[:]) != want {
				t.Fatalf("the fake alone: exit %d, output %x, want Go's (%s)", r.Exit, sum, r.Stderr)
			}
			l2.Seconds = 2 // the fake's first encs overlap at once; more runs only make it surer
			run = s2.Loops(ctx, l2)
			if run.Err != nil || len(run.Workers) != 2 {
				t.Fatalf("concurrent fake: err %v, %d workers", run.Err, len(run.Workers))
			}
			got, n = sums(t, run)
			if n == 0 || got[want] == n {
				t.Errorf("concurrent fake: outputs %v: want some of the %d wrong", got, n)
			}
			t.Logf("%s: system openssl %d runs; concurrent fake %d runs, %d wrong", shell[0], sysRuns, n, n-got[want])
			if r, files := s2.Exec(ctx, agent.RemoteExec{Argv: []string{"true"}, Read: []string{s2.Dir() + "/cw0.out", s2.Dir() + "/go"}}); r.Err != nil || r.Exit != 0 || len(files) != 0 {
				t.Errorf("after the check: exit %d, %v, files %d: want the session working and the outputs gone", r.Exit, r.Err, len(files))
			}
		})
	}
}

// TestShellLoopsHang: a worker whose openssl never ends (the fake's second enc at once, FLEET_FAKE=hang) is a hang:
// the watchdog ends the check after its seconds and the timeout, the worker is named hung, its openssl is
// killed on the board, and the session serves the next request.
func TestShellLoopsHang(t *testing.T) {
	for i, shell := range posixShells {
		t.Run(shell[0], func(t *testing.T) {
			board := shellBoardAs(t, shell)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			secs := 7000 + os.Getpid()%1000*3 + i // a sleep no other test makes: its processes are this test's
			s, l := loopsFor(t, ctx, board, concurrentOpenSSL(t), "FLEET_FAKE=hang", "FLEET_FAKE_SLEEP="+strconv.Itoa(secs),
				"FLEET_FAKE_WAIT=10")
			l.TimeoutS = 3
			run := s.Loops(ctx, l)
			if run.Err != nil || len(run.Workers) != 2 {
				t.Fatalf("err %v, %d workers", run.Err, len(run.Workers))
			}
			hung := 0
			for _, wr := range run.Workers {
				if wr.Hung {
					hung++
				}
			}
			if !run.TimedOut || hung == 0 {
				t.Errorf("timed out %v, %d workers hung (%+v): want the hang reported", run.TimedOut, hung, run.Workers)
			}
			if r, _ := s.Exec(ctx, agent.RemoteExec{Argv: []string{"true"}}); r.Err != nil || r.Exit != 0 {
				t.Errorf("the next request: exit %d, %v", r.Exit, r.Err)
			}
			if left := killLeftProcesses("sleep\x00"+strconv.Itoa(secs)+"\x00", 5*time.Second); len(left) > 0 {
				t.Errorf("the hung openssl is left running on the board (pids %v)", left)
			}
		})
	}
}
