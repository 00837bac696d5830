package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDisk mounts a small tmpfs (the database stays elsewhere), puts old at name in it, and fills the rest.
func fullDisk(t *testing.T, name string, old []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("disk-full simulation needs root to mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for chunk := make([]byte, 4096); err == nil; {
		_, err = f.Write(chunk)
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the disk: %v", err)
	}
	return path
}

// TestFileOutputsOnFullDisk is the atomic replacement of output files at the CLI: `report -o existing.html` and
// `regress --junit existing.xml` on a full disk fail with exit 2 and the cause, never print "wrote", and leave
// the old file as it was (no truncated report, no temporary file).
func TestFileOutputsOnFullDisk(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	v := map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6, "devcrypto/16": 20e6, "devcrypto/16384": 400e6}
	storeSweep(t, db, "nightly", v)
	storeSweep(t, db, "", v)
	old := bytes.Repeat([]byte("<p>last week's report</p>\n"), 100)
	for _, tc := range []struct {
		name string
		args func(path string) []string
	}{
		{"report.html", func(path string) []string { return []string{"report", "--db", db, "-o", path} }},
		{"regress.xml", func(path string) []string {
			return []string{"regress", "--baseline", "nightly", "--db", db, "--junit", path}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fullDisk(t, tc.name, old)
			_, stderr, code := runFleet(t, tc.args(path)...)
			if got, want := code, exitUsage; got != want {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, want, stderr)
			}
			if !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, path) {
				t.Errorf("stderr does not name %s and the full disk:\n%s", path, stderr)
			}
			if strings.Contains(stderr, "wrote") {
				t.Errorf("stderr says it wrote the file:\n%s", stderr)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, old) {
				t.Errorf("the old file is now %d bytes, want its %d", len(b), len(old))
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 2 {
				t.Errorf("%d files beside the output, want it and the filler only", len(entries))
			}
		})
	}
}
