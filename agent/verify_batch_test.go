package agent

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

// verifyBatch runs the cpu verification of alg with the interactive fake openssl (testdata/verify/
// openssl-interactive) as a 1.1.1, over the default sizes; starts is how many interactive processes it began.
func verifyBatch(t *testing.T, alg string, timeoutS float64, env ...string) (r protocol.VerifyReport, res verify.Result, starts int) {
	t.Helper()
	needOpenSSL(t)
	fake, _ := filepath.Abs("testdata/verify/openssl-interactive")
	log := filepath.Join(t.TempDir(), "starts")
	t.Setenv("FLEET_TEST_BATCH_LOG", log)
	t.Setenv("FLEET_TEST_BATCH_STATE", filepath.Join(t.TempDir(), "died"))
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	s := &sweepState{plan: protocol.Plan{Sizes: protocol.DefaultSizes, VerifyTimeoutS: timeoutS}}
	r = s.verifyOpenSSL(context.Background(), fake, opensslVersion{Major: 1, Minor: 1, Patch: 1, Letter: "w"}, protocol.ModeCPU, alg)
	r.Mode, r.Algorithm = protocol.ModeCPU, alg
	if err := r.Validate(); err != nil {
		t.Fatalf("the report does not validate: %v", err)
	}
	b, _ := os.ReadFile(log)
	return r, verify.Judge(r), strings.Count(string(b), "start\n")
}

// TestVerifyBatchOneProcessPerWorker: an interactive openssl (1.0.2, 1.1.1) runs every enc of a path in one
// process a worker instead of one a command (21 for the default sizes), each size still its own input each way,
// the outputs right.
func TestVerifyBatchOneProcessPerWorker(t *testing.T) {
	for _, alg := range []string{"aes-128-cbc", "aes-128-ctr"} {
		r, res, starts := verifyBatch(t, alg, 0)
		if res.Verdict != protocol.VerificationOK {
			t.Fatalf("%s: %s %q", alg, res.Verdict, res.Detail)
		}
		if want := min(runtime.NumCPU(), len(r.Cases)); starts != want {
			t.Errorf("%s: %d interactive openssl processes for %d inputs, want %d (one a worker)", alg, starts, len(r.Cases), want)
		}
		var enc []int
		for _, c := range r.Cases {
			if c.Op == "encrypt" {
				enc = append(enc, c.Size)
			}
		}
		if sizes := verifySizes(protocol.Plan{}); !slices.Equal(enc, sizes) {
			t.Errorf("%s encrypts %v, want each of %v once", alg, enc, sizes)
		}
	}
}

// TestVerifyBatchWrongMidBatch: a path wrong at 8192 B only, in the middle of a batch, is wrong there and only
// there: the inputs before and after it in the same process are right.
func TestVerifyBatchWrongMidBatch(t *testing.T) {
	r, res, _ := verifyBatch(t, "aes-128-cbc", 0, "FLEET_TEST_BATCH_CORRUPT", "8192")
	if want := "encrypt 8192 B in requests of 4096 B: first difference in bytes 0–255"; res.Verdict != protocol.VerificationWrong || res.Detail != want {
		t.Errorf("wrong at 8192 B mid-batch: %s %q, want wrong, only %q", res.Verdict, res.Detail, want)
	}
	for _, c := range r.Cases {
		if c.Err != "" {
			t.Errorf("%s %d B: %s, want an output", c.Op, c.Size, c.Err)
		}
	}
}

// TestVerifyBatchHang: a batch whose command at 4096 B hangs is ended at the path's deadline; that input is
// named as hung, the ones after it in its batch as skipped, and those before it were judged right.
func TestVerifyBatchHang(t *testing.T) {
	r, res, _ := verifyBatch(t, "aes-128-cbc", 3, "FLEET_TEST_BATCH_HANG", "4096")
	if res.Verdict != protocol.VerificationWrong || res.Size != 4096 || !strings.Contains(res.Detail, "did not answer within 3 s") {
		t.Errorf("hung at 4096 B: %s %q at %d B, want wrong at 4096 B, naming the deadline", res.Verdict, res.Detail, res.Size)
	}
	hung, skipped, answered := 0, 0, 0
	for _, c := range r.Cases {
		switch {
		case c.Op == "encrypt" && c.Size == 4096:
			if !strings.HasPrefix(c.Err, "verification of cpu aes-128-cbc did not answer within 3 s") {
				t.Errorf("encrypt 4096 B: %q, want hung at the deadline", c.Err)
			}
			hung++
		case strings.HasPrefix(c.Err, "skipped: verification of cpu aes-128-cbc did not answer within 3 s"):
			if c.Op == "encrypt" && c.Size < 4096 {
				t.Errorf("encrypt %d B, before the hang, skipped", c.Size)
			}
			skipped++
		case c.Err == "":
			answered++
		default:
			t.Errorf("%s %d B: %q", c.Op, c.Size, c.Err)
		}
	}
	if hung != 1 || skipped == 0 || answered == 0 {
		t.Errorf("%d hung, %d skipped, %d answered; want 1 hung, the rest of its batch skipped, the others answered", hung, skipped, answered)
	}
}

// TestVerifyBatchDies: a batch that dies at 4096 B (SIGSEGV) fails that input, naming the process's end, and the
// inputs after it run in a fresh batch and are right.
func TestVerifyBatchDies(t *testing.T) {
	r, res, starts := verifyBatch(t, "aes-128-cbc", 0, "FLEET_TEST_BATCH_DIE", "4096")
	if res.Verdict != protocol.VerificationWrong || res.Size != 4096 || res.Op != "encrypt" || strings.Contains(res.Detail, "checks wrong") {
		t.Errorf("died at 4096 B: %s %q, want wrong at encrypt 4096 B only", res.Verdict, res.Detail)
	}
	for _, c := range r.Cases {
		if c.Op == "encrypt" && c.Size == 4096 {
			if !strings.Contains(c.Err, "while running this input in a batch") {
				t.Errorf("encrypt 4096 B: %q, want the process's end named", c.Err)
			}
		} else if c.Err != "" {
			t.Errorf("%s %d B: %q, want an output (run in a fresh batch)", c.Op, c.Size, c.Err)
		}
	}
	if want := min(runtime.NumCPU(), len(r.Cases)) + 1; starts != want {
		t.Errorf("%d interactive starts, want %d (one more for the inputs after the death)", starts, want)
	}
}

// TestVerifyBatchRefused: an openssl without the interactive mode (3.x, here given as 1.1.1) prints its help and
// takes no command: every input runs on its own, and the path is judged as usual.
func TestVerifyBatchRefused(t *testing.T) {
	needOpenSSL(t)
	s := &sweepState{plan: protocol.Plan{Sizes: protocol.DefaultSizes}}
	r := s.verifyOpenSSL(context.Background(), "openssl", opensslVersion{Major: 1, Minor: 1, Patch: 1}, protocol.ModeCPU, "aes-128-cbc")
	r.Mode, r.Algorithm = protocol.ModeCPU, "aes-128-cbc"
	if res := verify.Judge(r); res.Verdict != protocol.VerificationOK || len(r.Cases) != 21 {
		t.Errorf("openssl 3 taken for 1.1.1: %s %q, %d cases; want ok, 21", res.Verdict, res.Detail, len(r.Cases))
	}
}

// TestBatchable: an argument the interactive parser would split or mangle, or a line past its buffer, keeps
// the inputs out of a batch.
func TestBatchable(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want bool
	}{{"/a/in-16", true}, {"/a b/in-16", false}, {"it's", false}, {`a\b`, false}, {"#x", false}, {"", false}, {strings.Repeat("x", 1001), false}} {
		if got := batchable([][]string{{"openssl", "enc", "-in", tc.arg}}); got != tc.want {
			t.Errorf("batchable(%q) = %v, want %v", tc.arg, got, tc.want)
		}
	}
}

// TestBatchSections: stderr splits at the markers whatever else the versions print (1.0.2 lists its commands
// after an invalid one), and a command's "error in enc" stays in its own section.
func TestBatchSections(t *testing.T) {
	stderr := "bad decrypt\nerror in enc\n" +
		"openssl:Error: 'fleet-verify-done-4' is an invalid command.\n\nStandard commands\nenc dgst\nerror in fleet-verify-done-4\n" +
		"Invalid command 'fleet-verify-done-5'; type \"help\" for a list.\nerror in fleet-verify-done-5\n" +
		"engine \"afalg\" set.\n"
	got := batchSections(stderr, 4, 7)
	if want := []string{"bad decrypt\nerror in enc\n", ""}; !slices.Equal(got, want) {
		t.Errorf("sections %q, want %q (the third has no marker yet)", got, want)
	}
}
