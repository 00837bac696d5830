package opensslspeed

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readConstructed reads a capture written for the tests (testdata/constructed/README.md says how each was made).
func readConstructed(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "constructed", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseMulti111EVPRow: OpenSSL 1.1.1 `-multi N -evp ALG` labels its total row "evp" while the children's
// +DT/+R lines interleave. The row is named by the pasted command line, else by Hint.Algorithm, else it is a
// Problem saying what is missing; its threads are N.
func TestParseMulti111EVPRow(t *testing.T) {
	text := readConstructed(t, "1.1.1n-multi2-evp-aes128cbc.txt")
	_, noPrompt, _ := strings.Cut(text, "\n")
	// the evp row of the parent, in 1000s of bytes per second
	want := map[int]float64{16: 154783.86e3, 64: 394695.42e3, 256: 598756.86e3, 1024: 681141.59e3, 8192: 704282.62e3,
		16384: 705336.66e3}
	for _, tt := range []struct {
		name, text, alg string
	}{
		{"command line in the capture", text, ""},
		{"--algorithm given", noPrompt, "aes-128-cbc"},
		{"command line beats --algorithm", text, "sha256"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := Parse(tt.text, Hint{Algorithm: tt.alg})
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 {
				t.Fatalf("%d runs, want 1: %+v", len(runs), runs)
			}
			r := runs[0]
			if r.Failed != "" || len(r.Problems) != 0 {
				t.Fatalf("run failed: %q, problems %v", r.Failed, r.Problems)
			}
			if got, want := r.Version, "1.1.1n"; got != want {
				t.Errorf("version %q, want %q", got, want)
			}
			if len(r.Points) != len(want) {
				t.Fatalf("%d points, want %d: %+v", len(r.Points), len(want), r.Points)
			}
			for _, p := range r.Points {
				if p.Algorithm != "aes-128-cbc" || p.Threads != 2 || p.Timing != "wall" || p.Failed {
					t.Errorf("point %+v: want aes-128-cbc, 2 threads, wall, not failed", p)
				}
				if w := want[p.BlockSize]; math.Abs(p.BytesPerSec-w) > 1 {
					t.Errorf("%d B: %v B/s, want the evp row's %v", p.BlockSize, p.BytesPerSec, w)
				}
			}
		})
	}
	t.Run("nothing names it", func(t *testing.T) {
		runs, err := Parse(noPrompt, Hint{})
		if err != nil {
			t.Fatal(err)
		}
		var probs []Problem
		for _, r := range runs {
			probs = append(probs, r.Problems...)
			if r.Failed == "" {
				t.Errorf("run at line %d is not failed", r.Line)
			}
		}
		if len(probs) == 0 || !strings.Contains(probs[0].Text, ErrUnnamedEVP.Error()) || probs[0].Line != 37 {
			t.Fatalf("problems %v, want %q at line 37 (the evp row)", probs, ErrUnnamedEVP)
		}
	})
}
