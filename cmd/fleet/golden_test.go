package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestGoldenCLI runs the query commands on a seeded database and import --dry-run on a real capture, and compares
// what they print with testdata/NAME.golden. After a deliberate change of output, `go test ./cmd/fleet -update`
// rewrites the files; review the diff before committing it.
func TestGoldenCLI(t *testing.T) {
	db := goldenDB(t)
	capture := captureFile(t, "L01_local-3.0-evp-aes128cbc-elapsed.txt")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"runs", []string{"runs"}},
		{"runs-json", []string{"runs", "--format", "json"}},
		{"results", []string{"results"}},
		{"results-csv", []string{"results", "--run", "1", "--board", "imx6q", "--format", "csv"}},
		{"show", []string{"show", "1", "--raw"}},
		{"show-json", []string{"show", "nightly", "--format", "json"}},
		{"show-uuid", []string{"show", "0A1B2C3D-0000-4000-8000-000000000002"}},
		{"compare", []string{"compare"}},
		{"compare-markdown", []string{"compare", "--boards", "am64x", "--format", "markdown"}},
		{"compare-absent-board", []string{"compare", "--algorithms", "sha256"}},
		{"compare-run-twice", []string{"compare", "--run", "1", "--run", "2"}},
		{"regress", []string{"regress", "--baseline", "nightly"}},
		{"regress-json", []string{"regress", "--baseline", "nightly", "--format", "json"}},
		{"regress-threshold-out-of-range", []string{"regress", "--baseline", "nightly", "--threshold", "500%"}},
		{"history", []string{"history", "--board", "am64x", "--algorithm", "aes-128-cbc", "--mode", "devcrypto"}},
		{"changes-too-few-runs", []string{"changes"}},
		{"boards", []string{"boards", "list", "--inventory", filepath.Join("testdata", "golden-boards.toml")}},
		{"boards-json", []string{"boards", "list", "--inventory", filepath.Join("testdata", "golden-boards.toml"), "--format", "json"}},
		{"report", []string{"report", "--run", "nightly", "--output", "-"}},
		{"import-dry-run", []string{"import", "--board", "am335x", "--dry-run", capture}},
		{"import-dry-run-json", []string{"import", "--board", "am335x", "--dry-run", "--format", "json", capture}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goldenFleet(t, tc.name, db, tc.args...)
		})
	}
}

// TestGoldenChanges compares fleet changes over importNights' 30 nights (a 12 % step at run 18) with
// testdata/changes*.golden.
func TestGoldenChanges(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	importNights(t, db)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"changes", []string{"changes"}},
		{"changes-json", []string{"changes", "--format", "json"}},
		{"changes-fail-on-drop", []string{"changes", "--label", "nightly", "--fail-on-drop", "10%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goldenFleet(t, tc.name, db, tc.args...)
		})
	}
}

// goldenFleet runs fleet with args and --db db and compares its exit code, stdout and stderr with
// testdata/name.golden (or rewrites it with -update). The database's directory prints as $TMP.
func goldenFleet(t *testing.T, name, db string, args ...string) {
	t.Helper()
	stdout, stderr, code := runFleet(t, append(args, "--db", db)...)
	var b bytes.Buffer
	fmt.Fprintf(&b, "$ fleet %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, stdout, stderr)
	golden.Check(t, name+".golden", bytes.ReplaceAll(b.Bytes(), []byte(filepath.Dir(db)), []byte("$TMP")))
}

// goldenDB seeds a database in which every stored field is fixed: run 1 labelled nightly and an unlabelled run 2
// a day later, each with boards am64x (cpu and devcrypto, aes-128-cbc and sha256, rsa2048; a skip; one raw
// output) and imx6q (soft and cpu, aes-128-cbc; devcrypto skipped), five repeats per point. In run 2, am64x's
// devcrypto at 16384 B is 25 % slower and imx6q's cpu at 16 B 10 % faster.
func goldenDB(t *testing.T) string {
	t.Helper()
	return goldenDBAt(t, filepath.Join(t.TempDir(), "fleet.db"))
}

// goldenDBAt seeds goldenDB's runs into the database path (a new file or an empty PostgreSQL database).
func goldenDBAt(t *testing.T, path string) string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type series struct {
		mode, alg string
		size      int
		bps       float64
	}
	boards := []struct {
		name   string
		facts  protocol.Facts
		series []series
		skips  []protocol.Skip
	}{
		{"am64x", protocol.Facts{Hostname: "am64xx-evm", Machine: "aarch64", Kernel: "6.1.80-ti", OpenSSLVersion: "3.0.13",
			OpenSSL: "OpenSSL 3.0.13 30 Jan 2024", CPU: protocol.CPUFacts{Model: "Cortex-A53", Cores: 2, CurMHz: 1000, MaxMHz: 1000, Governor: "performance"}, DevCrypto: true},
			[]series{{"cpu", "aes-128-cbc", 16, 300e6}, {"cpu", "aes-128-cbc", 16384, 900e6}, {"devcrypto", "aes-128-cbc", 16, 20e6},
				{"devcrypto", "aes-128-cbc", 16384, 400e6}, {"cpu", "sha256", 16, 60e6}, {"cpu", "sha256", 16384, 700e6}},
			[]protocol.Skip{{Mode: "devcrypto", Algorithm: "sha256", Reason: "not offloaded by the driver"}}},
		{"imx6q", protocol.Facts{Hostname: "imx6q-sabresd", Machine: "armv7l", Kernel: "5.15.71", OpenSSLVersion: "1.1.1w",
			OpenSSL: "OpenSSL 1.1.1w 11 Sep 2023", CPU: protocol.CPUFacts{Model: "Cortex-A9", Cores: 4, CurMHz: 396, MaxMHz: 996, Governor: "ondemand"}},
			[]series{{"soft", "aes-128-cbc", 16, 40e6}, {"soft", "aes-128-cbc", 16384, 55e6}, {"cpu", "aes-128-cbc", 16, 45e6},
				{"cpu", "aes-128-cbc", 16384, 70e6}},
			[]protocol.Skip{{Mode: "devcrypto", Reason: "no /dev/crypto"}}},
	}
	day := time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)
	for run, label := range []string{"nightly", ""} {
		started := day.AddDate(0, 0, run)
		// Every store time of the run is its end: fixed whatever order the writer's batches take.
		db.Now = func() time.Time { return started.Add(47 * time.Second) }
		w, err := db.BeginRun(ctx, store.RunInfo{Label: label, ToolVersion: "v0.0.0-golden", Host: "ci",
			CommandLine: "fleet run --boards am64x,imx6q --repeat 5", Started: started,
			UUID: fmt.Sprintf("0a1b2c3d-0000-4000-8000-%012d", run+1)})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range boards {
			must(t, w.BoardStarted(ctx, b.name))
			must(t, w.BoardFacts(ctx, b.name, b.facts))
			if b.name == "am64x" {
				must(t, w.Raw(ctx, b.name, protocol.Raw{ID: 1, Command: []string{"openssl", "speed", "-elapsed", "-evp", "aes-128-cbc"},
					Stdout: "type 16 bytes 16384 bytes\naes-128-cbc 300000.00k 900000.00k\n"}))
			}
			for r := range 5 {
				for _, s := range b.series {
					v := s.bps * (1 + 0.004*float64(r-2))
					if run == 1 && b.name == "am64x" && s.mode == "devcrypto" && s.size == 16384 {
						v *= 0.75
					}
					if run == 1 && b.name == "imx6q" && s.mode == "cpu" && s.size == 16 {
						v *= 1.10
					}
					p := protocol.Point{Mode: s.mode, Algorithm: s.alg, Op: "encrypt", BlockSize: s.size, Threads: 1, Repeat: r,
						Count: v / float64(s.size), Seconds: 1, Timing: "wall", BytesPerSec: v, WallS: 1, UserS: 0.9, SysS: 0.05, CPUPct: 95}
					if s.alg == "sha256" {
						p.Op = "digest"
					}
					if s.mode == "devcrypto" {
						p.Engine, p.Driver, p.UserS, p.SysS, p.CPUPct = "devcrypto", "cbc-aes-sa2ul", 0.1, 0.4, 50
					}
					if b.name == "am64x" && s.mode == "cpu" && s.alg == "aes-128-cbc" {
						p.RawID = 1
					}
					must(t, w.Point(ctx, b.name, p))
				}
				if b.name == "am64x" {
					ops := 1200.0 * (1 + 0.004*float64(r-2))
					must(t, w.Point(ctx, b.name, protocol.Point{Mode: "cpu", Algorithm: "rsa", Op: "sign", KeyBits: 2048, Threads: 1,
						Repeat: r, Count: ops, Seconds: 1, Timing: "wall", OpsPerSec: ops, WallS: 1, UserS: 0.98, SysS: 0.01, CPUPct: 99}))
				}
			}
			for _, s := range b.skips {
				must(t, w.Skip(ctx, b.name, s))
			}
			must(t, w.BoardFinished(ctx, b.name, protocol.StatusOK, ""))
		}
		must(t, w.Finish(ctx, protocol.StatusOK))
	}
	return path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
