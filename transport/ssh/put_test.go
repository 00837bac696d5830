package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/sshtest"
)

// The sshtest server runs commands on this machine, so what Put writes "remotely" is checked on the local disk.
func TestSSHPut(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
	data := make([]byte, 5<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cache dir", "it's $(x)", "agent")
	if err := tr.Put(context.Background(), path, bytes.NewReader(data), int64(len(data)), 0o755); err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(got) != sha256.Sum256(data) {
		t.Errorf("sha256 of the copy = %x, want %x", sha256.Sum256(got), sha256.Sum256(data))
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", st.Mode().Perm())
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("parent directory mode = %v (%v), want 0700", st.Mode().Perm(), err)
	}
	assertNoTemp(t, filepath.Dir(path))

	t.Run("replaces", func(t *testing.T) {
		if err := tr.Put(context.Background(), path, strings.NewReader("v2"), 2, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != "v2" {
			t.Errorf("content = %q, want v2", got)
		}
	})
}

func TestSSHPutShortOrFailingSource(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
	tests := []struct {
		name string
		r    io.Reader
		want string
	}{
		{name: "short", r: strings.NewReader("only this"), want: "reader ended after 9 of 100 bytes"},
		{name: "read error", r: io.MultiReader(strings.NewReader("abc"), errReader{}), want: "read source: disk on fire"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "agent")
			err := tr.Put(context.Background(), path, tc.r, 100, 0o755)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Put = %v, want an error saying %q", err, tc.want)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s exists after a failed Put", path)
			}
			assertNoTemp(t, dir)
		})
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp.") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestSSHPutScriptSizeCheck(t *testing.T) {
	// The size check on the far side, run here with /bin/sh: 3 bytes arrive where 4 were announced.
	script := putScript(filepath.Join(t.TempDir(), "f"), 4, 0o644)
	var stderr bytes.Buffer
	err := runLocalSh(t, script, strings.NewReader("abc"), &stderr)
	if err == nil || !strings.Contains(stderr.String(), "size mismatch: wrote 3 bytes, want 4") {
		t.Errorf("script = %v, stderr %q; want a size mismatch", err, stderr.String())
	}
}

func TestSSHRemotePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"~", `"$HOME"`},
		{"~/.cache/fleet/agent-ab", `"$HOME"/'.cache/fleet/agent-ab'`},
		{"/opt/x y", `'/opt/x y'`},
		{"~user/x", `'~user/x'`},
		{"rel/$(x)", `'rel/$(x)'`},
	}
	for _, tc := range tests {
		if got := remotePath(tc.in); got != tc.want {
			t.Errorf("remotePath(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSSHPutCancelled(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
	dir := t.TempDir()
	path := filepath.Join(dir, "agent")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	errc := make(chan error, 1)
	go func() { errc <- tr.Put(ctx, path, pr, 1<<20, 0o755) }()
	if _, err := pw.Write(make([]byte, 1000)); err != nil { // the copy is under way
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Put = %v, want context.Canceled", err)
	}
	waitFor(t, "no temporary file left", func() bool {
		entries, _ := os.ReadDir(dir)
		return len(entries) == 0
	})
}
