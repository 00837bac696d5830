package lab_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// labFunctions runs script in bash after lab/lab's die, its settings and the named functions, with LAB_SRC the
// repository's lab/ (lab/lab's own top level runs commands, so the functions are taken out with sed).
func labFunctions(t *testing.T, ctx context.Context, script string, funcs []string, args ...string) (string, error) {
	t.Helper()
	root := repoRoot(t)
	var sed []string
	for _, f := range funcs {
		sed = append(sed, "/^"+f+"()/,/^}/p")
	}
	prelude := `set -euo pipefail
LAB_SRC=$(cd "$(dirname "$1")" && pwd)
eval "$(sed -n '/^die()/p; /^SENSOR_[A-Z0-9_]*=/p; ` + strings.Join(sed, "; ") + `' "$1")"
shift
`
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", prelude + script, "lab-test",
		filepath.Join(root, "lab", "lab")}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPowerDaemonBuild: lab/lab cross-builds lab-power for each board as a static ELF of the board's machine, and
// the binary runs there: under qemu-user, `lab-power model` gives the model's figure.
func TestPowerDaemonBuild(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, c := range []struct {
		board, debarch, target, machine, qemu string
	}{
		{"qemu-arm64", "arm64", "GOARCH=arm64", "AArch64", "qemu-aarch64-static"},
		{"qemu-armv7", "armhf", "GOARCH=arm GOARM=7", "ARM", "qemu-arm-static"},
	} {
		t.Run(c.board, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "lab-power")
			out, err := labFunctions(t, ctx, `board=$1 DEBARCH=$2 GO_TARGET=($3); power_daemon_build "$4"`,
				[]string{"power_daemon_build"}, c.board, c.debarch, c.target, bin)
			if err != nil {
				t.Fatalf("power_daemon_build: %v: %s", err, out)
			}
			elf, err := exec.CommandContext(ctx, "readelf", "-h", "-l", bin).CombinedOutput()
			if err != nil {
				t.Fatalf("readelf: %v: %s", err, elf)
			}
			if !regexp.MustCompile(`Machine: +`+c.machine+"\n").Match(elf) || strings.Contains(string(elf), "INTERP") {
				t.Errorf("%s: not a static %s ELF:\n%s", bin, c.machine, elf)
			}
			if _, err := exec.LookPath(c.qemu); err != nil {
				t.Skipf("%s not installed: not running the binary", c.qemu)
			}
			got, err := exec.CommandContext(ctx, c.qemu, bin, "model", "2000", "1000", "2", "100", "1000", "200", "1200").CombinedOutput()
			if err != nil || string(got) != "3000\n" {
				t.Errorf("%s lab-power model (one of two cores busy) = %q, %v; want 3000", c.qemu, got, err)
			}
		})
	}
	out, err := labFunctions(t, ctx, `board=qemu-arm64 DEBARCH=arm64 GO_TARGET=(GOARCH=arm); power_daemon_build "$1"`,
		[]string{"power_daemon_build"}, filepath.Join(t.TempDir(), "lab-power"))
	if err == nil || !strings.Contains(out, "is not a AArch64 ELF") {
		t.Errorf("power_daemon_build of a 32-bit ARM binary for qemu-arm64: %v %q, want it refused", err, out)
	}
}

// TestPowerDaemonSum: the image key's part for lab-power changes with any of its Go files, so an image is
// rebuilt when the program is, and not with a test file, which does not change the program.
func TestPowerDaemonSum(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	if out, err := exec.CommandContext(ctx, "cp", "-a", filepath.Join(repoRoot(t), "lab", "power")+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	sum := func() string {
		t.Helper()
		out, err := labFunctions(t, ctx, `SENSOR_DAEMON=$1; power_daemon_sum`, []string{"power_daemon_sum"}, dir)
		if err != nil || len(strings.TrimSpace(out)) != 64 {
			t.Fatalf("power_daemon_sum: %v %q, want a sha256", err, out)
		}
		return strings.TrimSpace(out)
	}
	appendTo := func(name, text string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	before := sum()
	appendTo("extra_test.go", "package main\n")
	if got := sum(); got != before {
		t.Errorf("a new test file changed the sum (%s → %s): images would rebuild for a test", before, got)
	}
	appendTo("loop.go", "\n// edited\n")
	if got := sum(); got == before {
		t.Errorf("an edited loop.go left the sum at %s: the images would keep the old lab-power", got)
	}
}

// TestSensorVendored runs lab/lab's sensor_vendored: the vendored Linux files pass as they are (the pin in lab/lab
// is the real SHA256SUMS's); an edited file, an extra file or an edited list stops the build.
func TestSensorVendored(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := repoRoot(t)
	run := func(dir string) (string, error) {
		t.Helper()
		script := `set -euo pipefail
LAB_SRC=/nonexistent
eval "$(sed -n '/^die()/p; /^SENSOR_[A-Z0-9_]*=/p; /^sensor_vendored()/,/^}/p' "$1")"
SENSOR_VENDOR=$2
sensor_vendored`
		out, err := exec.CommandContext(ctx, "bash", "-c", script, "lab-test", filepath.Join(root, "lab", "lab"), dir).CombinedOutput()
		return string(out), err
	}
	if out, err := run(filepath.Join(root, "lab", "sensor")); err != nil {
		t.Fatalf("sensor_vendored on lab/sensor: %v: %s", err, out)
	}
	for _, c := range []struct {
		name, file, text, want string
	}{
		{"edited file", "drivers/hwmon/ina2xx.c", "/* edited */\n", "not Linux 6.1.192's files"},
		{"extra file", "drivers/hwmon/extra.c", "int x;\n", "files SHA256SUMS does not list: drivers/hwmon/extra.c"},
		{"edited list", "SHA256SUMS", "\n", "SHA256SUMS: its sha256 is"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if out, err := exec.CommandContext(ctx, "cp", "-a", filepath.Join(root, "lab", "sensor")+"/.", dir).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
			f, err := os.OpenFile(filepath.Join(dir, c.file), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(c.text); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if out, err := run(dir); err == nil || !strings.Contains(out, c.want) {
				t.Errorf("sensor_vendored with an %s: %v %q, want it refused: %q", c.name, err, out, c.want)
			}
		})
	}
}
