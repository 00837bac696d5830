package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mountTmpfs mounts a small tmpfs on a new directory: a full disk as users meet it (root, who may mount, is
// not spared by a full file system).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("disk-full simulation needs root to mount a %s tmpfs: %v", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes to dir/fill until the file system is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}

// TestWriteOnFullDisk: on a real full disk, replacing a report fails with ENOSPC, the old report is intact and no
// temporary file is left.
func TestWriteOnFullDisk(t *testing.T) {
	dir := mountTmpfs(t, "256k")
	path := filepath.Join(dir, "report.html")
	old := bytes.Repeat([]byte("old report\n"), 1000)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	fill(t, dir)
	err := Write(path, func(w io.Writer) error {
		_, err := w.Write(bytes.Repeat([]byte("new report\n"), 100000))
		return err
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Write on a full disk = %v, want ENOSPC", err)
	}
	t.Logf("full disk: %v", err)
	if b, _ := os.ReadFile(path); !bytes.Equal(b, old) {
		t.Errorf("old report changed: %d bytes, want %d", len(b), len(old))
	}
	if extra := leftovers(t, dir, "report.html", "fill"); extra != nil {
		t.Errorf("files left behind: %v", extra)
	}
}
