package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestVerifyCiphersEachSizeRun: with the real openssl, every size is its own run each way (none is the prefix of
// a longer run's output), and the output given for each is the one a run of that size alone gives, for CBC, ECB
// and CTR. The runs are counted through a wrapper that logs every start.
func TestVerifyCiphersEachSizeRun(t *testing.T) {
	real, dir, wrapper, log := startLoggedOpenSSL(t)
	sizes := []int{15, 16, 4096, 8192, 65536}
	files := map[int]string{}
	for _, n := range sizes {
		files[n] = filepath.Join(dir, "in-"+strconv.Itoa(n))
		if err := os.WriteFile(files[n], protocol.VerifyPattern(n, protocol.VerifySeedPayload), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, alg := range []string{"aes-128-cbc", "aes-256-ecb", "aes-128-ctr"} {
		t.Run(alg, func(t *testing.T) {
			os.Remove(log)
			spec := protocol.VerifyCiphers[alg]
			o := &opensslVerifier{argv0: wrapper, alg: alg, dir: t.TempDir(), workers: 2, host: localHost{}, decrypt: true}
			var written []string
			cases, why := o.ciphers(context.Background(), spec, sizes, files, &written)
			if why != "" {
				t.Fatal(why)
			}
			b, _ := os.ReadFile(log)
			starts := strings.Count(string(b), "\n")
			// CBC and ECB: encrypt all five (15 padded), decrypt the four whole blocks; CTR (no blocks): all five both ways
			want := 2*len(sizes) - btoiTest(spec.Block > 1)
			if starts != want {
				t.Errorf("%d openssl runs, want %d:\n%s", starts, want, b)
			}
			if got := len(cases); got != 2*len(sizes)-btoiTest(spec.Block > 1) {
				t.Errorf("%d cases, want every size each way: %+v", got, cases)
			}
			for _, c := range cases {
				alone := o.dir + "/alone"
				one := &opensslVerifier{argv0: real, alg: alg, dir: o.dir, host: localHost{}}
				res := one.run(context.Background(), one.encArgv(spec, files[c.Size], alone, c.Op == "decrypt", c.Padded), "")
				out, err := os.ReadFile(alone)
				if res.Exit != 0 || err != nil {
					t.Fatalf("openssl enc %s %d alone: exit %d, %v: %s", c.Op, c.Size, res.Exit, err, res.Stderr)
				}
				if w := newVerifyCase(c.Op, c.Size, out); w.Out != c.Out || strings.Join(w.Chunks, ",") != strings.Join(c.Chunks, ",") || w.OutLen != c.OutLen || c.Err != "" {
					t.Errorf("%s %d B: the case differs from a run of that size alone (err %q)", c.Op, c.Size, c.Err)
				}
			}
		})
	}
}

func btoiTest(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestVerifyEncryptOnlySweep: a sweep that measures encryption only runs no `openssl enc -d` (13 starts a cipher
// for the default sizes, not 21), every size still its own encryption run, while the agent's own one-piece
// requests of afalg still check both ways; with --decrypt the decryptions come back.
func TestVerifyEncryptOnlySweep(t *testing.T) {
	_, dir, wrapper, log := startLoggedOpenSSL(t)
	sizes := verifySizes(protocol.Plan{})
	for _, decrypt := range []bool{false, true} {
		os.Remove(log)
		r, res := verifyPlan(t, protocol.Plan{Decrypt: decrypt}, wrapper, protocol.ModeCPU, "aes-128-cbc", nil)
		if res.Verdict != protocol.VerificationOK {
			t.Fatalf("decrypt %v: %s %q", decrypt, res.Verdict, res.Detail)
		}
		b, _ := os.ReadFile(log)
		enc, dec := strings.Count(string(b), "enc -aes-128-cbc -e "), strings.Count(string(b), "enc -aes-128-cbc -d ")
		wantDec := 0
		if decrypt {
			wantDec = 8 // the whole-block sizes
		}
		if enc != len(sizes) || dec != wantDec {
			t.Errorf("decrypt %v: %d encryptions and %d decryptions through openssl, want %d and %d:\n%s", decrypt, enc, dec, len(sizes), wantDec, b)
		}
		got := map[string]int{}
		for _, c := range r.Cases {
			got[c.Op]++
		}
		if got["encrypt"] != len(sizes) || got["decrypt"] != wantDec {
			t.Errorf("decrypt %v: cases %v", decrypt, got)
		}
	}
	os.Remove(log)
	glue, _ := filepath.Abs("testdata/verify/openssl-engine-passthrough")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH")) // the passthrough runs the logging wrapper
	r, _ := verifyPlan(t, protocol.Plan{}, glue, protocol.ModeAFALG, "aes-128-cbc", (&fakeCBCDriver{}).request)
	b, _ := os.ReadFile(log)
	if !strings.Contains(string(b), "enc -aes-128-cbc -e ") || strings.Contains(string(b), " -d ") {
		t.Errorf("afalg of an encryption-only sweep: want its glue to encrypt through openssl and never decrypt:\n%s", b)
	}
	direct := 0
	for _, c := range r.Cases {
		if c.Op == "decrypt" && c.Via != "" {
			direct++
		}
	}
	if direct == 0 {
		t.Errorf("afalg of an encryption-only sweep: no decryption by the agent's own requests: %+v", r.Cases)
	}
}

// startLoggedOpenSSL is a wrapper, dir/openssl, that appends each start's arguments to log and runs the real openssl
// (skipping the test without one).
func startLoggedOpenSSL(t *testing.T) (real, dir, wrapper, log string) {
	t.Helper()
	real, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl on PATH")
	}
	dir = t.TempDir()
	log = filepath.Join(dir, "starts")
	wrapper = filepath.Join(dir, "openssl")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\necho \"$*\" >> "+log+"\nexec "+real+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return real, dir, wrapper, log
}
