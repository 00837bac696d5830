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
	real, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl on PATH")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "starts")
	wrapper := filepath.Join(dir, "openssl")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\necho \"$*\" >> "+log+"\nexec "+real+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
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
			o := &opensslVerifier{argv0: wrapper, alg: alg, dir: t.TempDir(), workers: 2, host: localHost{}}
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
