package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportSessionOneRun: two captures of one sitting are one run, so compare shows both modes; with
// --run-per-file they are two.
func TestImportSessionOneRun(t *testing.T) {
	cpu, soft := captureFile(t, "L01_local-3.0-evp-aes128cbc-elapsed.txt"), captureFile(t, "Q02_qemu-arm64-3.0.20-armcap0-evp-aes128cbc.txt")
	db := filepath.Join(t.TempDir(), "fleet.db")
	if _, stderr, code := runFleet(t, "import", "--db", db, "--board", "b", cpu, soft); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	out, _, _ := runFleet(t, "runs", "--db", db, "--format", "json")
	var runs []struct {
		Points int    `json:"points"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 1 || runs[0].Points != 12 {
		t.Fatalf("runs %s (%v): want one run of 12 points", out, err)
	}
	out, stderr, code := runFleet(t, "compare", "--db", db)
	if code != 0 || !strings.Contains(out, "soft") || !strings.Contains(out, "cpu") {
		t.Errorf("compare: exit %d, want both modes of the session:\n%s%s", code, out, stderr)
	}

	db2 := filepath.Join(t.TempDir(), "fleet.db")
	if _, stderr, code := runFleet(t, "import", "--db", db2, "--board", "b", "--run-per-file", cpu, soft); code != 0 {
		t.Fatalf("import --run-per-file: exit %d: %s", code, stderr)
	}
	out, _, _ = runFleet(t, "runs", "--db", db2, "--format", "json")
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 2 {
		t.Errorf("--run-per-file: runs %s, want two", out)
	}
}

func TestImportModeFlag(t *testing.T) {
	cpu := captureFile(t, "L01_local-3.0-evp-aes128cbc-elapsed.txt")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--mode", "soft", "--dry-run", "--format", "json", cpu}, 0, `"mode":"soft"`},
		{[]string{"--mode", "warp", cpu}, 2, `import --mode: mode "warp": unknown mode "warp"`},
		{[]string{"--mode", "ssh", cpu}, 2, "import --mode ssh: not a mode of openssl speed"},
		{[]string{"--mode", "", cpu}, 2, "import --mode: "},
		{[]string{"--mode", "devcrypto", captureFile(t, "Q02_qemu-arm64-3.0.20-armcap0-evp-aes128cbc.txt")}, 2,
			"the capture says mode soft (from its environment), --mode says devcrypto"},
	} {
		db := filepath.Join(t.TempDir(), "fleet.db")
		out, stderr, code := runFleet(t, append([]string{"import", "--db", db, "--board", "b"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("import %q: exit %d, want %d with %q:\n%s%s", tc.args, code, tc.code, tc.want, out, stderr)
		}
	}
}
