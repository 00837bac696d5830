package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestRegressJUnitSaysNoteOnce: a series whose every point failed is a JUnit failure whose message carries the
// points' error; the failure's body does not say it a second time.
func TestRegressJUnitSaysNoteOnce(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	base := map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6, "devcrypto/16": 20e6, "devcrypto/16384": 400e6}
	storeSweep(t, db, "nightly", base)

	ctx := context.Background()
	s, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.BeginRun(ctx, store.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	const why = "engine devcrypto fell back to software"
	for r := range 5 {
		for _, key := range []string{"cpu/16384", "devcrypto/16384"} {
			mode, _, _ := strings.Cut(key, "/")
			p := protocol.Point{Mode: mode, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1, Repeat: r,
				Count: base[key] / 16384, Seconds: 1, Timing: "wall", BytesPerSec: base[key], WallS: 1, UserS: 0.9, CPUPct: 95}
			if mode == "devcrypto" {
				p.Failed, p.Error = true, why
			}
			if err := w.Point(ctx, "am64x", p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.BoardFinished(ctx, "am64x", protocol.StatusOK, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	s.Close()

	junit := filepath.Join(dir, "regress.xml")
	stdout, stderr, code := runFleet(t, "regress", "--baseline", "nightly", "--junit", junit, "--db", db)
	if code != exitRegression {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitRegression, stdout, stderr)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	_, failure, ok := strings.Cut(string(x), `<failure message="aes-128-cbc 16384 B devcrypto`)
	if !ok {
		t.Fatalf("no failure for devcrypto 16384 B:\n%s", x)
	}
	failure, _, _ = strings.Cut(failure, "</failure>")
	if n := strings.Count(failure, why); n != 2 { // once in the message attribute, once in the body
		t.Errorf("the failure says %q %d times, want once in its message and once in its body:\n%s", why, n, failure)
	}
}
