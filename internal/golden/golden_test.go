package golden

import (
	"fmt"
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

func TestOutputLines(t *testing.T) {
	transcript := "$ fleet runs --a-very-long-command-line\nexit 0\n--- stdout\nout\n--- stderr\nerr\n"
	var got []string
	for _, l := range outputLines(transcript) {
		got = append(got, fmt.Sprintf("%d:%s", l.n, l.text))
	}
	if want := "4:out 6:err 7:"; strings.Join(got, " ") != want {
		t.Errorf("outputLines(transcript) = %q, want %q", strings.Join(got, " "), want)
	}
	if got := outputLines("a\nb"); len(got) != 2 || got[0].text != "a" {
		t.Errorf("outputLines of a plain golden = %v, want every line", got)
	}
}

func TestCheckWidths(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", TextWidth+1)
	for name, body := range map[string]string{
		"fits.golden":      strings.Repeat("─", TextWidth) + "\n", // 100 columns, 300 bytes
		"too-wide.golden":  "ok\n" + long + "\n",
		"wide-cjk.golden":  strings.Repeat("板", TextWidth/2+1) + "\n", // 51 runes, 102 columns
		"cli.golden":       "$ fleet " + long + "\nexit 0\n--- stdout\nok\n--- stderr\n" + long + "\n",
		"machine.golden":   long + "\n",
		"not-a-golden.txt": long + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &recorder{TB: t}
	if n := CheckWidths(r, dir, Allow{"machine.golden": "a machine format"}); n != 4 {
		t.Errorf("CheckWidths read %d files, want 4 (the allowed one and the non-golden left out)", n)
	}
	if got := strings.Join(r.errors, "\n"); len(r.errors) != 3 {
		t.Errorf("CheckWidths reported %d lines, want 3 (too-wide:2, wide-cjk:1, cli.golden:6):\n%s", len(r.errors), got)
	}
}
