package reftable

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/opensslspeed"
)

// FuzzParse feeds any text to Parse: it never panics, refuses with an *Error at a line of the text, and
// whatever it accepts is a figure a measurement could have, of a named board and mode.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && !strings.HasSuffix(name, "README.md") {
			f.Add(b, "b", "cpu", 0)
		}
	}
	f.Add([]byte("Algorithm\tSize\tARM CE (MB/s)\naes-128-cbc\t16\t1.0\n"), "", "", 2)
	f.Add([]byte("| Algorithm | b: CPU Load |\n|---|---|\n| aes | 5 |\n"), "b", "soft", 0)
	f.Add([]byte("+--+--+\n|a |b |\n+==+==+\n|c |1 |\n+--+--+\n"), "b", "", 0)
	f.Add([]byte(".. csv-table:: t\n   :header: \"Algorithm\", \"Size\", \"x (Mbit/s)\"\n\n   sha256,16 bytes,\"1 (min 0.5, max 2)\"\n"), "b", "kcapi", 0)
	f.Fuzz(func(t *testing.T, data []byte, board, mode string, threads int) {
		r, err := Parse(data, Options{File: "f", Board: board, Mode: mode, Threads: threads})
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is no *Error", err)
			}
			if n := strings.Count(string(data), "\n") + 1; pe.Line < 1 || pe.Line > n {
				t.Fatalf("error at line %d of a text of %d lines: %v", pe.Line, n, err)
			}
			return
		}
		if len(r.Entries) == 0 {
			t.Fatal("accepted with no entries")
		}
		for _, e := range r.Entries {
			if err := e.Point.Validate(); err != nil {
				t.Fatalf("entry %+v: %v", e, err)
			}
			if e.Board == "" || e.Mode == "" || e.Threads < 1 || e.Threads > opensslspeed.MaxThreads {
				t.Fatalf("entry without board, mode or threads: %+v", e)
			}
			if (e.BytesPerSec > 0) == (e.OpsPerSec > 0) || e.BytesPerSec > opensslspeed.MaxBytesPerSec || e.OpsPerSec > opensslspeed.MaxOpsPerSec {
				t.Fatalf("entry with not exactly one figure in bounds: %+v", e)
			}
			if e.PublishedMax > 0 && !(e.PublishedMin <= e.BytesPerSec+e.OpsPerSec && e.BytesPerSec+e.OpsPerSec <= e.PublishedMax) {
				t.Fatalf("figure outside its published range: %+v", e)
			}
			if e.BlockSize < 0 || e.BlockSize > opensslspeed.MaxBlockSize || (e.BlockSize == 0) == (e.KeyBits == 0) {
				t.Fatalf("entry with a bad size or key size: %+v", e)
			}
		}
	})
}
