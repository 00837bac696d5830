package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// leftovers lists the files in dir other than the wanted ones: temporary files a failed Write left behind.
func leftovers(t *testing.T, dir string, want ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	for _, e := range entries {
		if !slices.Contains(want, e.Name()) {
			extra = append(extra, e.Name())
		}
	}
	return extra
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := Write(path, writeString("first")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode().Perm(), DefaultPerm; got != want {
		t.Errorf("new file mode %v, want %v", got, want)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, writeString("second")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "second" {
		t.Errorf("content %q, want %q", b, "second")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want its old 0600", fi.Mode().Perm())
	}
	if extra := leftovers(t, dir, "report.html"); extra != nil {
		t.Errorf("files left behind: %v", extra)
	}
}

// failing wraps a real temporary file and makes Sync or Close fail, as NFS or a full disk can.
type failing struct {
	*os.File
	sync, close error
}

func (f *failing) Sync() error {
	if f.sync != nil {
		return f.sync
	}
	return f.File.Sync()
}

func (f *failing) Close() error {
	err := f.File.Close()
	if f.close != nil {
		return f.close
	}
	return err
}

// TestWriteFailureKeepsOldFile: with a failing writer, whatever fails — the renderer half way, Sync, Close — the
// old file is intact, no temporary file is left, and the error names the file and the cause.
func TestWriteFailureKeepsOldFile(t *testing.T) {
	errRender := errors.New("render failed")
	errIO := errors.New("input/output error")
	tests := []struct {
		name        string
		write       func(io.Writer) error
		sync, close error
		want        error
	}{
		{"writer fails half way", func(w io.Writer) error {
			io.WriteString(w, "<html>half")
			return errRender
		}, nil, nil, errRender},
		{"sync fails", writeString("new"), errIO, nil, errIO},
		{"close fails", writeString("new"), nil, errIO, errIO},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.html")
			if err := os.WriteFile(path, []byte("old report"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := writeWith(path, tt.write, func(dir, pattern string) (file, error) {
				f, err := os.CreateTemp(dir, pattern)
				if err != nil {
					return nil, err
				}
				return &failing{File: f, sync: tt.sync, close: tt.close}, nil
			})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Write = %v, want %v naming %s", err, tt.want, path)
			}
			if b, _ := os.ReadFile(path); string(b) != "old report" {
				t.Errorf("old file is now %q", b)
			}
			if extra := leftovers(t, dir, "report.html"); extra != nil {
				t.Errorf("files left behind: %v", extra)
			}
		})
	}
}

func TestWriteFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "reports", "today.html")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.html")
	if err := os.Symlink("reports/today.html", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target = %q, want %q", b, "new")
	}
}

// A FIFO (or /dev/stdout) cannot be replaced by a rename; Write writes into it.
func TestWriteToFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(path)
		got <- string(b)
	}()
	if err := Write(path, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("read %q from the FIFO", s)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi, err)
	}
}

func TestWriteRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, writeString("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Write(directory) = %v, want it refused", err)
	}
}
