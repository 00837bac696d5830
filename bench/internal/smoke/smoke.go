// Package smoke runs bench's programs and scripts at their smallest, from their tests: a few boards, one round,
// one-second points, enough to go through the whole path of each and to see it print its ratio. The ratio's value
// is not judged (that is the benchmark's job, on a quiet machine); that the program still runs is. The tests run
// only with FLEET_BENCH_SMOKE=1 (test.sh's stage "bench smoke"), so that `go test ./...` stays as quick as it was:
//
//	FLEET_BENCH_SMOKE=1 go test -count=1 -run Smoke ./bench/...
package smoke

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Env is the variable that turns the smoke tests on.
const Env = "FLEET_BENCH_SMOKE"

// Need skips t unless FLEET_BENCH_SMOKE=1.
func Need(t *testing.T) {
	t.Helper()
	if os.Getenv(Env) != "1" {
		t.Skip("a smoke run of a benchmark: run with " + Env + "=1 (test.sh's stage \"bench smoke\")")
	}
}

// NeedCommand skips t when name is not on PATH, saying what provides it.
func NeedCommand(t *testing.T, name, provider string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not found (%s)", name, provider)
	}
	return p
}

// Cmd describes one run: the command line, its environment on top of this process's, its directory.
type Cmd struct {
	Args    []string
	Env     []string
	Dir     string
	Timeout time.Duration // 0: 5 minutes
}

// Run runs c and returns its stdout; it fails t, with the run's output, when c does not exit 0 in time.
func Run(t *testing.T, c Cmd) string {
	t.Helper()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Dir = c.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s: %.1f s", filepath.Base(c.Args[0]), time.Since(start).Seconds())
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("%q did not end within %v\nstdout:\n%s\nstderr:\n%s", c.Args, timeout, stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("%q: %v\nstdout:\n%s\nstderr:\n%s", c.Args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// Line returns the submatches of the first line of out that matches the regular expression re, and fails t
// when none does.
func Line(t *testing.T, out, re string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)` + re).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no line matches %q in the output:\n%s", re, out)
	}
	return m
}

// Number is the regular expression of a printed figure: a decimal, possibly negative, or NaN/Inf when a
// program on a strange machine prints one (that it printed is what counts).
const Number = `(-?[0-9]+(?:\.[0-9]+)?|NaN|[+-]?Inf)`

// Refused runs argv and fails t unless it exits with code and its stderr names what (a flag, a file).
func Refused(t *testing.T, code int, what string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != code {
		t.Errorf("%q: %v, want exit %d; stderr: %s", argv[1:], err, code, stderr.String())
		return
	}
	if !bytes.Contains(stderr.Bytes(), []byte(what)) {
		t.Errorf("%q: stderr %q does not name %s", argv[1:], stderr.String(), what)
	}
}
