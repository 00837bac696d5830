package agent

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// limitsFixture writes the verification inputs of sizes and an openssl wrapper running body (sh) in front of
// the real openssl; it returns the wrapper and the inputs.
func limitsFixture(t *testing.T, body string, sizes []int) (string, map[int]string) {
	t.Helper()
	real, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl on PATH")
	}
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "openssl")
	script := "#!/bin/sh\nREAL=" + real + "\n" + body
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[int]string{}
	for _, n := range sizes {
		files[n] = filepath.Join(dir, "in-"+strconv.Itoa(n))
		if err := os.WriteFile(files[n], protocol.VerifyPattern(n, protocol.VerifySeedPayload), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return wrapper, files
}

// TestVerifyHugeOutputBounded: an openssl that appends 8 MiB to every output is judged by its length alone,
// without reading it, in a report the protocol accepts: before, the agent read every output whole and sent its chunk digests, which for 200 MB
// outputs took 3 GB and broke the protocol's line limit instead of making the path wrong.
func TestVerifyHugeOutputBounded(t *testing.T) {
	sizes := []int{16, 4096}
	body := `out=""; prev=""
for a in "$@"; do [ "$prev" = -out ] && out=$a; prev=$a; done
"$REAL" "$@" || exit
head -c 8388608 /dev/zero >> "$out"
`
	wrapper, files := limitsFixture(t, body, sizes)
	o := &opensslVerifier{argv0: wrapper, alg: "aes-128-cbc", dir: t.TempDir(), workers: 2, host: localHost{}}
	var written []string
	cases, why := o.ciphers(context.Background(), protocol.VerifyCiphers["aes-128-cbc"], sizes, files, &written)
	if why != "" {
		t.Fatal(why)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		want := strconv.Itoa(c.Size+8388608) + " bytes of output, more than the" // whole blocks: no padding
		if !strings.HasPrefix(c.Err, want) || c.Out != "" || len(c.Chunks) != 0 {
			t.Errorf("%s %d B: err %q, %d hex, %d chunks; want %q… alone", c.Op, c.Size, c.Err, len(c.Out),
				len(c.Chunks), want)
		}
	}
	r := protocol.VerifyReport{Mode: "cpu", Algorithm: "aes-128-cbc", Path: "openssl enc", Cases: cases}
	if err := r.Validate(); err != nil {
		t.Errorf("the report of a flooding path does not pass the protocol's checks: %v", err)
	}
}

// TestReadFileMax: a file up to the bound is read; a longer one is refused with its length, unread.
func TestReadFileMax(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 100), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := readFileMax(p, 100); err != nil || len(b) != 100 {
		t.Errorf("readFileMax(100 B, 100) = %d bytes, %v", len(b), err)
	}
	var long *errOutputTooLong
	if _, err := readFileMax(p, 99); !errors.As(err, &long) || long.Size != 100 {
		t.Errorf("readFileMax(100 B, 99) = %v, want errOutputTooLong of 100 bytes", err)
	}
}
