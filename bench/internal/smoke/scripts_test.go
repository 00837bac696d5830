package smoke

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/buildtest"
)

// bench is the directory of the scripts, from this package's (bench/internal/smoke).
var bench = filepath.Join("..", "..")

// localEnv is the environment of a fleet run on the local board: a private HOME (no ~/.ssh of the user's takes
// part, and the board's agent directory is new), no ssh-agent, but the user's cache directory, where fleet keeps
// the agents it built as Go keeps its build cache: a fresh one would cost every test a build of the agent
// (37 s on a loaded 2-core machine).
func localEnv(t *testing.T) []string {
	env := []string{"HOME=" + t.TempDir(), "SSH_AUTH_SOCK="}
	if cache, err := os.UserCacheDir(); err == nil {
		env = append(env, "XDG_CACHE_HOME="+cache)
	}
	return env
}

// TestSmokeNightlyAnalyse runs bench/nightly-analyse.py over the trace of a real one-point run on the local
// board (fleet run --trace, the input the script is documented for) and checks its per-board lines.
func TestSmokeNightlyAnalyse(t *testing.T) {
	Need(t)
	NeedCommand(t, "python3", "apt-get install python3")
	NeedCommand(t, "openssl", "apt-get install openssl")
	fleet, dir := buildtest.Fleet(t), t.TempDir()
	trace := filepath.Join(dir, "trace.txt")
	Run(t, Cmd{Args: []string{"sh", "-c", `"$0" --db "$1" run --boards local --modes cpu --algorithms aes-128-cbc ` +
		`--sizes 1024 --seconds 1 --trace 2>"$2"`, fleet, filepath.Join(dir, "fleet.db"), trace}, Env: localEnv(t)})
	out := Run(t, Cmd{Args: []string{"python3", filepath.Join(bench, "nightly-analyse.py"), trace}})
	Line(t, out, `^local: wall `+Number+` s, 1 points, openssl measured `+Number+` s \(`+Number+` % of the wall\)$`)
	Line(t, out, `^  verification \([0-9]+ paths\) +`+Number+` s +`+Number+` %$`)
	Line(t, out, `^  series: start, exit and agent around \(span - measured\) +`+Number+` s +`+Number+` %$`)
}

// TestSmokeSweep6 runs bench/sweep6.sh once (a 1-point and a 6-point sweep on the local board) and
// bench/sweep6-analyse.py over what it printed, and checks the analysis' ratio line.
func TestSmokeSweep6(t *testing.T) {
	Need(t)
	for _, c := range []struct{ name, from string }{{"bash", "bash"}, {"python3", "python3"}, {"sqlite3", "apt-get install sqlite3"},
		{"bc", "apt-get install bc"}, {"openssl", "apt-get install openssl"}} {
		NeedCommand(t, c.name, c.from)
	}
	fleet, dir := buildtest.Fleet(t), t.TempDir()
	table := Run(t, Cmd{Args: []string{"bash", filepath.Join(bench, "sweep6.sh"), dir, "1", "--boards", "local"},
		Env: append(localEnv(t), "FLEET="+fleet)})
	Line(t, table, `^1 1 `+Number+` `+Number+` `+Number+` `+Number+` `+Number+` `+Number+` 1$`)
	Line(t, table, `^1 6 `+Number+` `+Number+` `+Number+` `+Number+` `+Number+` `+Number+` 6$`)
	path := filepath.Join(dir, "table.txt")
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	out := Run(t, Cmd{Args: []string{"python3", filepath.Join(bench, "sweep6-analyse.py"), path}})
	Line(t, out, `^median T6-\(T1-1\) `+Number+` s = [+-]`+Number+` % of 6 s$`)
}

// TestSmokeFalseAlarms runs bench/validity/false-alarms.sh over 2 nights (a baseline and one judged night,
// regress without and with --confirm) and checks its summary lines.
func TestSmokeFalseAlarms(t *testing.T) {
	Need(t)
	NeedCommand(t, "openssl", "apt-get install openssl")
	out := Run(t, Cmd{Args: []string{"sh", filepath.Join(bench, "validity", "false-alarms.sh"), buildtest.Fleet(t), "2", "tolerant"},
		Env: localEnv(t)})
	Line(t, out, `^night 1: baseline`)
	Line(t, out, `^night 2: regress exit [0-9]+, with --confirm exit [0-9]+`)
	for _, name := range []string{"plain", "confirm"} {
		Line(t, out, `^`+name+`: 1 judged nights: exit 0 ×[0-9]+, 1 ×[0-9]+, 2 ×[0-9]+, 4 ×[0-9]+$`)
	}
}

// TestSmokeRunAll checks the driver that runs every benchmark at full size (40 minutes: too long to run here):
// its syntax, and that every program and test it names still exists, so that a rename breaks this test.
func TestSmokeRunAll(t *testing.T) {
	Need(t)
	script := filepath.Join(bench, "run-all.sh")
	Run(t, Cmd{Args: []string{"sh", "-n", script}})
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, m := range regexp.MustCompile(`go run \./(bench/[a-z]+)`).FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(filepath.Join(bench, "..", m[1], "main.go")); err != nil {
			t.Errorf("run-all.sh runs ./%s: %v", m[1], err)
		}
	}
	for _, m := range regexp.MustCompile(`-run (Bench[A-Za-z]+) \./bench/sshbench`).FindAllStringSubmatch(text, -1) {
		if !fileHas(t, filepath.Join(bench, "sshbench"), "func Test"+m[1]+"(") {
			t.Errorf("run-all.sh runs %s: no func Test%s in bench/sshbench", m[1], m[1])
		}
	}
	for _, s := range regexp.MustCompile(`(bench/[a-z/]+\.sh)`).FindAllString(text, -1) {
		if _, err := os.Stat(filepath.Join(bench, "..", s)); err != nil {
			t.Errorf("run-all.sh runs %s: %v", s, err)
		}
	}
}

// TestSmokeSSHModeQEMU checks bench/sshmode-qemu.sh's syntax; running it boots the two QEMU boards of the lab
// (minutes, root, lab/lab build), which test.sh's lab stage does once already: only with
// FLEET_BENCH_SMOKE_LAB=1 does this test run it.
func TestSmokeSSHModeQEMU(t *testing.T) {
	Need(t)
	script := filepath.Join(bench, "sshmode-qemu.sh")
	Run(t, Cmd{Args: []string{"bash", "-n", script}})
	if os.Getenv("FLEET_BENCH_SMOKE_LAB") != "1" {
		t.Skip("running sshmode-qemu.sh boots the QEMU lab (minutes): set FLEET_BENCH_SMOKE_LAB=1 to run it")
	}
	NeedCommand(t, "qemu-system-aarch64", "sudo .ci/install-deps")
	out := Run(t, Cmd{Args: []string{"bash", script}, Env: []string{"FLEET_LAB_CACHE=" + os.Getenv("FLEET_LAB_CACHE")}})
	Line(t, out, `(?i)ssh`)
}

// fileHas reports whether a Go file of dir contains s.
func fileHas(t *testing.T, dir, s string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
