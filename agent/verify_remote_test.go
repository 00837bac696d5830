package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

// loopsBoard is a LoopsRemote that answers the concurrency check with run and remembers what it was asked.
type loopsBoard struct {
	Remote
	run   RemoteLoopsRun
	asked RemoteLoops
}

func (b *loopsBoard) Loops(_ context.Context, l RemoteLoops) RemoteLoopsRun {
	b.asked = l
	return b.run
}

// TestRemoteConcurrencyJudged: what a remote board's workers sent becomes the VerifyConcurrency the controller
// judges as it judges the agent's own workers: all outputs right is ok; a wrong output, a failed run, a failed
// hash, a line that is no digest, a missing worker, a hang and a session that broke are each wrong, with the
// cause in the detail. Both kinds of check: an enc output hashed on the board, a dgst's line hashed here.
func TestRemoteConcurrencyJudged(t *testing.T) {
	const size = 4096
	expected := func(alg, op string) []byte {
		b, err := verify.Expected(alg, protocol.VerifyCase{Op: op, Size: size})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	enc := expected("aes-128-cbc", "encrypt")
	encSum := sha256.Sum256(enc)
	good := hex.EncodeToString(encSum[:]) + " */tmp/fleet-sh.1.00000000/cw0.o"
	bad := strings.Repeat("ab", 32) + " */tmp/fleet-sh.1.00000000/cw1.o"
	in := "/tmp/fleet-sh.1.00000000/in-4096"
	dgst := "SHA2-256(" + in + ")= " + hex.EncodeToString(expected("sha256", "digest"))
	wrongDgst := "SHA2-256(" + in + ")= " + strings.Repeat("00", 32)
	two := func(a, b RemoteWorker) RemoteLoopsRun {
		return RemoteLoopsRun{Workers: []RemoteWorker{a, b}, Seconds: 2}
	}
	for _, tc := range []struct {
		name, alg string
		run       RemoteLoopsRun
		want      string // "" for ok, else a part of the wrong detail
	}{
		{"enc right", "aes-128-cbc", two(RemoteWorker{Outputs: []string{good, good}}, RemoteWorker{Outputs: []string{good}}), ""},
		{"dgst right", "sha256", two(RemoteWorker{Outputs: []string{dgst}}, RemoteWorker{Outputs: []string{dgst, dgst}}), ""},
		{"enc wrong", "aes-128-cbc", two(RemoteWorker{Outputs: []string{good, good}}, RemoteWorker{Outputs: []string{bad, good}}), "1 of 4 outputs of encrypt 4096 B wrong"},
		{"dgst wrong", "sha256", two(RemoteWorker{Outputs: []string{dgst}}, RemoteWorker{Outputs: []string{wrongDgst}}), "1 of 2 outputs of digest 4096 B wrong"},
		{"run failed", "aes-128-cbc", two(RemoteWorker{Outputs: []string{good}}, RemoteWorker{Exit: 139, Stderr: "Segmentation fault\n"}), "worker 1: exit 139: Segmentation fault"},
		{"hash failed", "aes-128-cbc", two(RemoteWorker{Outputs: []string{good}}, RemoteWorker{Hash: 1, Stderr: "dgst: no\n"}), "worker 1: the board's openssl dgst -sha256"},
		{"not a digest", "aes-128-cbc", two(RemoteWorker{Outputs: []string{good}}, RemoteWorker{Outputs: []string{"Segmentation fault"}}), "no output digest"},
		{"worker missing", "aes-128-cbc", RemoteLoopsRun{Workers: []RemoteWorker{{Outputs: []string{good}}}}, "1 of 2 workers reported"},
		{"hung", "aes-128-cbc", RemoteLoopsRun{Workers: []RemoteWorker{{Outputs: []string{good}}, {Hung: true}}, TimedOut: true}, "hung: a worker did not come back"},
		{"session broke", "aes-128-cbc", RemoteLoopsRun{Err: errors.New("shell path on b: unexpected EOF")}, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			digest := tc.alg == "sha256"
			board := &loopsBoard{run: tc.run}
			o := &opensslVerifier{argv0: "/usr/bin/openssl", alg: tc.alg, dir: "/tmp/fleet-sh.1.00000000", env: []string{"A=b"}}
			c := o.remoteConcurrency(context.Background(), board, protocol.VerifyCiphers[tc.alg], digest, 2, 2e9, size, in)
			if l := board.asked; l.Workers != 2 || l.Seconds != 2 || l.TimeoutS != verifyChildTimeout.Seconds() || l.MaxRuns <= 0 || strings.Join(l.Env, " ") != "A=b" {
				t.Errorf("asked %+v", l)
			}
			if digest != (board.asked.Out == "") || !digest && !strings.Contains(strings.Join(board.asked.Argv, " "), "-out "+board.asked.Out) {
				t.Errorf("argv %q, out %q: want enc to write Out, dgst to print", board.asked.Argv, board.asked.Out)
			}
			var first protocol.VerifyCase
			if digest {
				first = newVerifyCase("digest", size, expected(tc.alg, "digest"))
			} else {
				first = newVerifyCase("encrypt", size, enc)
			}
			r := protocol.VerifyReport{Mode: "devcrypto", Algorithm: tc.alg, Cases: []protocol.VerifyCase{first}, Concurrency: c}
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
			res := verify.Judge(r)
			switch {
			case tc.want == "" && res.Verdict != protocol.VerificationOK:
				t.Errorf("verdict %s %q, want ok (concurrency %+v)", res.Verdict, res.Detail, c)
			case tc.want != "" && (res.Verdict != protocol.VerificationWrong || !strings.Contains(res.Detail, tc.want)):
				t.Errorf("verdict %s %q, want wrong with %q", res.Verdict, res.Detail, tc.want)
			}
		})
	}
}

// TestRemoteVerifyWorkers: a Remote that runs loops gets the concurrency check once per accelerated mode, with the
// board's cores by default (not the controller's); one that cannot gets none, and its facts say so.
func TestRemoteVerifyWorkers(t *testing.T) {
	s := &sweepState{remote: &loopsBoard{}, plan: protocol.Plan{VerifyThreads: -1}}
	s.facts.CPU.Cores = 3
	if n := s.verifyWorkers("devcrypto"); n != 3 {
		t.Errorf("devcrypto: %d workers, want the board's 3 cores", n)
	}
	if n := s.verifyWorkers("devcrypto"); n != 0 {
		t.Errorf("devcrypto again: %d workers, want 0 (once per mode)", n)
	}
	if n := s.verifyWorkers(protocol.ModeCPU); n != 0 {
		t.Errorf("cpu: %d workers, want 0", n)
	}
	s = &sweepState{remote: struct{ Remote }{}, plan: protocol.Plan{VerifyThreads: 4}}
	if n := s.verifyWorkers("afalg"); n != 0 {
		t.Errorf("a Remote without loops: %d workers, want 0", n)
	}
	plan := protocol.Plan{Verify: true, VerifyThreads: 2, Modes: []string{"afalg"}}
	if notes := (&remoteProbed{board: struct{ Remote }{}}).unprepared(&plan); !strings.Contains(strings.Join(notes, ";"), "no concurrency check") {
		t.Errorf("a Remote without loops: notes %q, want the missing check said", notes)
	}
	if notes := (&remoteProbed{board: &loopsBoard{}}).unprepared(&plan); len(notes) != 0 {
		t.Errorf("a LoopsRemote: notes %q, want none", notes)
	}
}
