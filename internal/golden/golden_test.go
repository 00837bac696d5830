package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps its errors instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Name() string                 { return "TestSomething/case" }
func (r *recorder) Errorf(f string, args ...any) { r.errors = append(r.errors, f) }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })

	*update = true
	Check(t, "out.golden", []byte("a\nb\n"))
	*update = false
	if b, err := os.ReadFile(filepath.Join(dir, "testdata", "out.golden")); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("-update wrote %q, %v; want the output", b, err)
	}
	r := &recorder{TB: t}
	Check(r, "out.golden", []byte("a\nb\n"))
	if len(r.errors) != 0 {
		t.Errorf("the same output: errors %q", r.errors)
	}
	Check(r, "out.golden", []byte("a\nc\n"))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "output differs") {
		t.Errorf("a changed line: errors %q, want one", r.errors)
	}
}

func TestDiff(t *testing.T) {
	got := Diff("a\nb\nc\n", "a\nB\nc\nd\n")
	for _, want := range []string{`line 2:`, `want: "b"`, `got:  "B"`, `line 4:`, `got:  "d"`} {
		if !strings.Contains(got, want) {
			t.Errorf("Diff = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "line 1:") || strings.Contains(got, "line 3:") {
		t.Errorf("Diff = %q names equal lines", got)
	}
}
