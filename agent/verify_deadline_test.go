package agent

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

// wrappedOpenSSL is the testdata/verify script name with the real openssl's path written in (and the other
// replacements, old and new in turn), as an executable.
func wrappedOpenSSL(t *testing.T, name string, replace ...string) string {
	t.Helper()
	real, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl on PATH")
	}
	b, err := os.ReadFile(filepath.Join("testdata/verify", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.NewReplacer(append(replace, "@OPENSSL@", real)...).Replace(string(b))), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVerifyPathDeadline: an openssl whose aes-128-cbc path hangs from 4096 B on (testdata/verify/
// openssl-hang-cbc) ends that path's verification within its one deadline (1.5 s here; 60 s per input cost
// 6 minutes before), the inputs the deadline ended saying so by mode, algorithm and seconds, the later ones
// skipped with that reason, the inputs before it answered; the path is wrong, as a hung path is; the next path
// (aes-128-ctr, same sweep) is verified ok.
func TestVerifyPathDeadline(t *testing.T) {
	bin := wrappedOpenSSL(t, "openssl-hang-cbc")
	s := &sweepState{plan: protocol.Plan{Sizes: []int{16}, VerifyTimeoutS: 1.5, Decrypt: true}}
	v := opensslVersion{Major: 3, Patch: 19}
	start := time.Now()
	r := s.verifyOpenSSL(context.Background(), bin, v, protocol.ModeCPU, "aes-128-cbc")
	took := time.Since(start)
	if took < 1500*time.Millisecond || took > 5*time.Second {
		t.Errorf("the hung path's verification took %v, want its one deadline of 1.5 s (and a kill)", took)
	}
	const hung = "verification of cpu aes-128-cbc did not answer within 1.5 s"
	n := map[string]int{}
	for _, c := range r.Cases {
		switch {
		case c.Err == hung:
			n["hung"]++
		case c.Err == "skipped: "+hung:
			n["skipped"]++
		case c.Err == "" && c.Size < 4096:
			n["ok"]++
		default:
			t.Errorf("%s %d B: err %q", c.Op, c.Size, c.Err)
		}
	}
	// encrypt 1, 15, 16, 17, 4095 answer; encrypt 4096 hangs, and what comes after it (encrypt 4097, 65536,
	// decrypt 16, 4096, 65536) hangs or is skipped: at most one hang per process running at once
	if n["ok"] != 5 || n["hung"] < 1 || n["hung"]+n["skipped"] != 6 || n["skipped"] < 6-s.verifyProcesses() {
		t.Errorf("cases %v, want 5 answered, 6 hung or skipped, at most one hung per process (%d)", n, s.verifyProcesses())
	}
	r.Mode, r.Algorithm = protocol.ModeCPU, "aes-128-cbc"
	if res := verify.Judge(r); res.Verdict != protocol.VerificationWrong || !strings.Contains(res.Detail, ": the path failed: "+hung) {
		t.Errorf("hung path judged %s %q, want wrong: the path failed: %s", res.Verdict, res.Detail, hung)
	}

	start = time.Now()
	r = s.verifyOpenSSL(context.Background(), bin, v, protocol.ModeCPU, "aes-128-ctr")
	r.Mode, r.Algorithm = protocol.ModeCPU, "aes-128-ctr"
	if res := verify.Judge(r); res.Verdict != protocol.VerificationOK || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("the next path: %s %q in %v, want ok within its own deadline", res.Verdict, res.Detail, time.Since(start))
	}
}

// TestVerifyDirectDeadline: a one-piece request stuck in the driver (it never returns) is left behind at the
// path's deadline, and the later requests are skipped, naming the deadline.
func TestVerifyDirectDeadline(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	var calls atomic.Int32 // written by the request left behind
	s := &sweepState{plan: protocol.Plan{VerifyTimeoutS: 0.2}, direct: func(mode, alg, op string, in []byte) ([]byte, error) {
		calls.Add(1)
		<-stuck
		return nil, nil
	}}
	d := s.pathDeadline(protocol.ModeDevCrypto, "aes-128-cbc")
	start := time.Now()
	cases := s.directCases(d, protocol.ModeDevCrypto, "aes-128-cbc", []int{8192, 16384}, false, 16, opensslEncChunk)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v, want the 0.2 s deadline", took)
	}
	const hung = "verification of devcrypto aes-128-cbc did not answer within 0.2 s"
	want := []string{hung, "skipped: " + hung, "skipped: " + hung, "skipped: " + hung}
	if len(cases) != len(want) || calls.Load() != 1 {
		t.Fatalf("%d cases, %d requests; want %d cases, one request", len(cases), calls.Load(), len(want))
	}
	for i, c := range cases {
		if c.Err != want[i] || c.Via != "/dev/crypto aes-128-cbc" {
			t.Errorf("case %d (%s %d B): err %q via %q, want %q", i, c.Op, c.Size, c.Err, c.Via, want[i])
		}
	}
}

// TestVerifyDiskFull: an openssl enc that cannot write its output for a full disk (testdata/verify/
// openssl-disk-full: OpenSSL 3's "No space left on device") makes the path unknown, naming the command, the input
// and the output file, not wrong; an input that cannot be written for ENOSPC (a real one, /dev/full) names the
// file and the disk being full.
func TestVerifyDiskFull(t *testing.T) {
	bin := wrappedOpenSSL(t, "openssl-disk-full", "@FULL_ENC@", "in-4097")
	s := &sweepState{plan: protocol.Plan{Sizes: []int{16}}}
	r := s.verifyOpenSSL(context.Background(), bin, opensslVersion{Major: 3, Patch: 19}, protocol.ModeCPU, "aes-128-cbc")
	if !strings.HasPrefix(r.Unknown, "openssl enc (encrypt 4097 B): writing the output to ") ||
		!strings.HasSuffix(r.Unknown, ": no space left on device") || !strings.Contains(r.Unknown, "/out-") || len(r.Cases) != 0 {
		t.Errorf("enc on a full disk: unknown %q, %d cases; want unknown naming the output file and the full disk", r.Unknown, len(r.Cases))
	}

	err := os.WriteFile("/dev/full", []byte("x"), 0o600)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Skipf("no /dev/full here: %v", err)
	}
	if got, want := writeFailure("/dev/full", err), "writing the input to /dev/full: no space left on device"; got != want {
		t.Errorf("writeFailure = %q, want %q", got, want)
	}
}
