package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// validityDB stores two nightly runs of board local: the first with all 24 points invalid for background CPU and
// no openssl variable set, the second valid, with OPENSSL_ia32cap set for the board.
func validityDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for run := range 2 {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Started: time.Date(2026, 12, 1+run, 3, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		if run == 1 {
			env["OPENSSL_ia32cap"] = "~0x200000000000000"
		}
		must(t, w.BoardStarted(ctx, "local"))
		must(t, w.BoardFacts(ctx, "local", protocol.Facts{Kernel: "6.18.44", OpenSSLVersion: "3.0.19", OpenSSLEnv: env,
			KernelCmdline: "console=ttyS0 quiet", Modules: []string{}}))
		for i := range 24 {
			size := protocol.DefaultSizes[i%6]
			p := protocol.Point{Mode: []string{"soft", "cpu"}[i/6%2], Algorithm: []string{"aes-128-cbc", "sha256"}[i/12], Op: "encrypt",
				BlockSize: size, Threads: 1, Count: 1000, Seconds: 1, Timing: "wall", BytesPerSec: 1e9, WallS: 1, UserS: 1, CPUPct: 100,
				Validity: protocol.ValidityOK}
			if run == 0 {
				p.Validity, p.ValidityReasons = protocol.ValidityInvalid, []string{"background CPU 45 % (limit 10 %)"}
			}
			must(t, w.Point(ctx, "local", p))
		}
		must(t, w.BoardFinished(ctx, "local", protocol.StatusOK, ""))
		must(t, w.Finish(ctx, protocol.StatusOK))
	}
	return path
}

func TestRunsAndShowSayValidity(t *testing.T) {
	db := validityDB(t)
	out, stderr, code := runFleet(t, "runs", "--db", db)
	if code != 0 {
		t.Fatalf("runs: exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[1]), "validity") {
		t.Errorf("runs header %q has no validity column", lines[1])
	}
	var run1, run2 string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "1 "):
			run1 = l
		case strings.HasPrefix(l, "2 "):
			run2 = l
		}
	}
	if !strings.HasSuffix(run1, "24/24 invalid: background CPU") || !strings.HasSuffix(run2, " ok") {
		t.Errorf("runs rows:\n%s\n%s\nwant run 1 invalid for background CPU, run 2 ok", run1, run2)
	}

	out, stderr, code = runFleet(t, "runs", "--format", "json", "--db", db)
	var runs []struct {
		ID       int64 `json:"id"`
		Validity struct {
			Verdict       string   `json:"verdict"`
			Invalid       int      `json:"invalid"`
			InvalidCauses []string `json:"invalid_causes"`
			Headline      string   `json:"headline"`
		} `json:"validity"`
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil || code != 0 {
		t.Fatalf("runs --format json: exit %d, %v: %s%s", code, err, out, stderr)
	}
	if len(runs) != 2 || runs[1].ID != 1 || runs[1].Validity.Verdict != "invalid" || runs[1].Validity.Invalid != 24 ||
		runs[1].Validity.Headline != "invalid — 24 of 24 points invalid: background CPU" || runs[0].Validity.Verdict != "ok" {
		t.Errorf("runs json %+v", runs)
	}

	out, _, code = runFleet(t, "show", "1", "--db", db)
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || first != "run 1 (nightly): invalid — 24 of 24 points invalid: background CPU" {
		t.Errorf("show 1: exit %d, first line %q", code, first)
	}
	out, _, _ = runFleet(t, "show", "2", "--db", db)
	if !strings.Contains(out, "changed since run 1:") || !strings.Contains(out, "OPENSSL_ia32cap: unset → ~0x200000000000000") {
		t.Errorf("show 2 does not say what changed since run 1:\n%s", out)
	}
	if !strings.Contains(out, "OpenSSL env:") || !strings.Contains(out, "OPENSSL_ia32cap=~0x200000000000000") {
		t.Errorf("show 2 does not list the openssl environment:\n%s", out)
	}
	out, _, _ = runFleet(t, "history", "--board", "local", "--algorithm", "aes-128-cbc", "--mode", "cpu", "--size", "16384", "--db", db)
	if !strings.Contains(out, "OPENSSL_ia32cap: unset → ~0x200000000000000") {
		t.Errorf("history does not name the variable that changed:\n%s", out)
	}
}
