package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// storeFourBoards stores one run of four boards with 12-character names, four modes each, aes-128-cbc and
// sha256 at six block sizes, three repeats.
func storeFourBoards(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, store.RunInfo{Label: "lab"})
	if err != nil {
		t.Fatal(err)
	}
	boards := map[string][]string{
		"am335x-bbblk": {"soft", "cpu", "devcrypto", "afalg"},
		"am64xx-evm-1": {"soft", "cpu", "devcrypto", "kcapi"},
		"imx6q-sabrsd": {"soft", "cpu", "afalg", "kcapi"},
		"qemu-arm64-a": {"soft", "cpu", "afalg", "kcapi"},
	}
	for board, modes := range boards {
		if err := w.BoardStarted(ctx, board); err != nil {
			t.Fatal(err)
		}
		for r := range 3 {
			for mi, mode := range modes {
				for _, alg := range []string{"aes-128-cbc", "sha256"} {
					for _, size := range protocol.DefaultSizes {
						// accelerators: slow at small blocks, faster than cpu at large ones
						peak, half := 100e6*float64(mi+1), 16.0
						if mi > 1 {
							half = 2048
						}
						v := peak * float64(size) / (float64(size) + half) * (1 + 0.01*float64(r-1))
						p := protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt", BlockSize: size, Threads: 1, Repeat: r,
							Count: v / float64(size), Seconds: 1, Timing: "wall", BytesPerSec: v, WallS: 1, UserS: 0.5, SysS: 0.4, CPUPct: 90}
						if err := w.Point(ctx, board, p); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
		if err := w.BoardFinished(ctx, board, "ok", ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
}

// TestCompareFitsTerminal is the compact layout at the CLI: `fleet compare` on four boards × four modes prints
// nothing wider than 100 columns; --wide prints the full tables; --size chooses where boards meet.
func TestCompareFitsTerminal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeFourBoards(t, db)
	stdout, stderr, code := runFleet(t, "compare", "--db", db)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	if w, line := widestLine(stdout); w > 100 {
		t.Errorf("compare prints a line %d columns wide, want ≤ 100:\n%s", w, line)
	}
	for _, want := range []string{"qemu-arm64-a aes-128-cbc (", "aes-128-cbc at 16384 B, board against board", "crossover"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, stdout)
		}
	}
	stdout, stderr, code = runFleet(t, "compare", "--db", db, "--wide")
	if code != 0 {
		t.Fatalf("compare --wide: exit %d: %s", code, stderr)
	}
	if w, _ := widestLine(stdout); w <= 100 || !strings.Contains(stdout, "am335x-bbblk devcrypto") {
		t.Errorf("compare --wide is %d columns wide, want the full tables:\n%s", w, stdout)
	}
	stdout, stderr, code = runFleet(t, "compare", "--db", db, "--at-size", "1024")
	if code != 0 || !strings.Contains(stdout, "sha256 at 1024 B, board against board") {
		t.Errorf("compare --at-size 1024: exit %d, stderr %s, no table at 1024 B:\n%s", code, stderr, stdout)
	}
}

// TestCompareSizeRefused: a block size out of range or not measured is a usage error that names the flag.
func TestCompareSizeRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeFourBoards(t, db)
	for _, tc := range []struct{ size, want string }{
		{"0", "from 1 to 16777216"},
		{"-16", "from 1 to 16777216"},
		{"16777217", "from 1 to 16777216"},
		{"1000", "measured: 16, 64, 256, 1024, 8192, 16384"},
	} {
		stdout, stderr, code := runFleet(t, "compare", "--db", db, "--at-size", tc.size)
		if code != exitUsage || !strings.Contains(stderr, "--at-size") || !strings.Contains(stderr, tc.want) {
			t.Errorf("compare --at-size %s: exit %d, stderr %q, want exit 2 naming --at-size and %q", tc.size, code, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("compare --at-size %s printed tables before refusing:\n%s", tc.size, stdout)
		}
	}
}

// TestRunAtSizeRefusedBeforeSweep: `fleet run --at-size` a size the sweep does not measure is refused before
// anything is measured or stored.
func TestRunAtSizeRefusedBeforeSweep(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	_, stderr, code := runFleet(t, "run", "--boards", "local", "--db", db, "--sizes", "16,1024", "--at-size", "64")
	if code != exitUsage || !strings.Contains(stderr, "--at-size 64") || !strings.Contains(stderr, "16, 1024") {
		t.Errorf("run --at-size 64 --sizes 16,1024: exit %d, stderr %q; want exit 2 naming --at-size and the sizes", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("run --at-size refused, but %s was created", db)
	}
}

func widestLine(s string) (int, string) {
	w, line := 0, ""
	for _, l := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(l); n > w {
			w, line = n, l
		}
	}
	return w, line
}

// TestCompareOldSizeSpelling: the layout's block size is --at-size on run and compare alike; compare's former
// --size is refused with the new spelling, before any table.
func TestCompareOldSizeSpelling(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	storeFourBoards(t, db)
	stdout, stderr, code := runFleet(t, "compare", "--db", db, "--size", "1024")
	if code != exitUsage || !strings.Contains(stderr, "--at-size 1024") || stdout != "" {
		t.Errorf("compare --size 1024: exit %d, stderr %q, stdout %q; want exit 2 naming --at-size 1024 and no table", code, stderr, stdout)
	}
	for _, cmd := range []string{"run", "compare"} {
		help, _, _ := runFleet(t, cmd, "--help")
		if !strings.Contains(help, "--at-size BYTES") || strings.Contains(help, "--size BYTES") {
			t.Errorf("%s --help does not offer --at-size alone:\n%s", cmd, help)
		}
	}
}
