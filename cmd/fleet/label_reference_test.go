package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceLabelRefusedForMeasuredRuns: a label a reference has is refused for a measured run (run and
// import, exit 2, naming the reference) before anything is measured or stored, and the other way round stays
// refused; results --run LABEL still shows the reference.
func TestReferenceLabelRefusedForMeasuredRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	importReference(t, db, "--reference", "r-good", "--board", "am64x-evm", tiSDK)
	capture := capturePath(t, "L01")
	for _, args := range [][]string{
		{"run", "--db", db, "--boards", "local", "--label", "r-good", "--algorithms", "sha256", "--seconds", "1"},
		{"import", "--db", db, "--board", "b1", "--label", "r-good", capture},
	} {
		stdout, stderr, code := runFleet(t, args...)
		if code != exitUsage {
			t.Errorf("fleet %q: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if !strings.Contains(stderr, "fleet import --reference r-good") {
			t.Errorf("fleet %q: stderr %q, want it to name the reference r-good", args, stderr)
		}
		if stdout != "" {
			t.Errorf("fleet %q printed %q", args, stdout)
		}
	}
	out, stderr, code := runFleet(t, "runs", "--db", db)
	if code != 0 || strings.Count(out, "r-good") != 1 || strings.Count(strings.TrimSpace(out), "\n") != 2 {
		t.Errorf("fleet runs: exit %d, %s%s; want the reference alone", code, out, stderr)
	}
	rows := resultRows(t, "--db", db, "--run", "r-good", "--algorithm", "aes-128-cbc", "--size", "16384")
	if len(rows) != 3 {
		t.Errorf("results --run r-good: %d rows, want the reference's 3", len(rows))
	}

	if _, _, code := runFleet(t, "import", "--db", db, "--board", "b1", "--label", "m-lab", capture); code != 0 {
		t.Fatalf("import --label m-lab: exit %d", code)
	}
	_, stderr, code = runFleet(t, "import", "--db", db, "--reference", "m-lab", "--board", "am64x-evm", tiSDK)
	if code != exitUsage || !strings.Contains(stderr, "label names measured runs") {
		t.Errorf("import --reference m-lab: exit %d, %q; want 2, the label of measured runs", code, stderr)
	}
}
