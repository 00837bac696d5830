package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// paritySweep is the sweep both paths measure: 2 modes × 2 algorithms × 3 sizes, 3 repeats of 1 s.
var paritySweep = []string{"--seconds", "1", "--algorithms", "aes-128-cbc,sha256", "--sizes", "16,1024,16384",
	"--modes", "soft,cpu,kcapi", "--repeat", "3"}

// withAgentKey adds agent = VALUE to the boards.toml tables of the boards named.
func withAgentKey(toml, value string, boards ...string) string {
	for _, b := range boards {
		toml = strings.Replace(toml, "[boards."+b+"]\n", "[boards."+b+"]\nagent = \""+value+"\"\n", 1)
	}
	return toml
}

type pointKey struct {
	mode, alg, op string
	size          int
}

// medians is each point's median throughput over its repeats.
func medians(ms []store.Measurement, board string) map[pointKey]float64 {
	vals := map[pointKey][]float64{}
	for _, m := range ms {
		if m.Board != board || m.Failed {
			continue
		}
		k := pointKey{m.Mode, m.Algorithm, m.Op, m.BlockSize}
		vals[k] = append(vals[k], m.BytesPerSec)
	}
	out := map[pointKey]float64{}
	for k, v := range vals {
		sort.Float64s(v)
		out[k] = v[len(v)/2]
	}
	return out
}

// compareFacts fails the test where the shell path's facts differ from the agent's in something both know.
func compareFacts(t *testing.T, ag, sh *protocol.Facts) {
	t.Helper()
	if ag == nil || sh == nil {
		t.Fatalf("facts missing: agent %v, shell %v", ag != nil, sh != nil)
	}
	same := func(what string, a, b any) {
		if a != b {
			t.Errorf("facts %s: agent %v, shell path %v", what, a, b)
		}
	}
	same("machine", ag.Machine, sh.Machine)
	same("kernel", ag.Kernel, sh.Kernel)
	same("openssl", ag.OpenSSL, sh.OpenSSL)
	same("openssl version", ag.OpenSSLVersion, sh.OpenSSLVersion)
	same("openssl build", ag.OpenSSLBuild, sh.OpenSSLBuild)
	same("cpu model", ag.CPU.Model, sh.CPU.Model)
	same("cores", ag.CPU.Cores, sh.CPU.Cores)
	same("features", strings.Join(ag.CPU.Features, ","), strings.Join(sh.CPU.Features, ","))
	same("mem", ag.MemKiB, sh.MemKiB)
	same("dev crypto", ag.DevCrypto, sh.DevCrypto)
	same("/proc/crypto entries", len(ag.ProcCrypto), len(sh.ProcCrypto))
	same("os release", ag.OSRelease["PRETTY_NAME"], sh.OSRelease["PRETTY_NAME"])
	for e, st := range ag.Engines {
		same("engine "+e, st, sh.Engines[e])
	}
	same("agent", ag.Agent, "")
	same("shell path", sh.Agent, "shell")
	for _, m := range ag.Modes {
		if m.Mode == protocol.ModeKCAPI {
			continue // the one mode only the agent has
		}
		i := slices.IndexFunc(sh.Modes, func(s protocol.ModeFact) bool { return s.Mode == m.Mode })
		if i < 0 {
			t.Errorf("facts: mode %s missing from the shell path's", m.Mode)
			continue
		}
		same("mode "+m.Mode+" available", m.Available, sh.Modes[i].Available)
	}
}

// runParity runs paritySweep on the agent board and the shell board at once (the same host, the same load) and
// compares their medians per point and their facts.
func runParity(t *testing.T, w *world, agentBoard, shellBoard string) {
	t.Helper()
	r := w.fleet(append([]string{"run", "--boards", agentBoard + "," + shellBoard, "--agent", agentBin}, paritySweep...)...)
	// kcapi is a skip on the shell board, and the host's load may make points invalid: exit 0 or 1 (a
	// validity verdict) are both a finished run; what matters is below
	if r.code != 0 {
		t.Logf("run exited %d (validity verdicts on a busy host are not what this test judges)\n%s", r.code, r)
	}
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) == 0 {
		t.Fatalf("no run stored\n%s", r)
	}
	run := runs[0].ID
	brs := w.boardRuns(db, run)
	compareFacts(t, brs[agentBoard].Facts, brs[shellBoard].Facts)
	if !slices.ContainsFunc(brs[shellBoard].Skips, func(s protocol.Skip) bool {
		return s.Mode == protocol.ModeKCAPI && strings.Contains(s.Reason, "needs the agent")
	}) {
		t.Errorf("shell board's skips %+v: want kcapi skipped because it needs the agent", brs[shellBoard].Skips)
	}
	if !strings.Contains(r.stdout+r.stderr, "shell path") {
		t.Errorf("the run's output does not say the board was measured through its shell\n%s", r)
	}
	ms := w.measurements(db, store.Filter{RunID: run})
	for _, m := range ms {
		checkPoint(t, m)
	}
	ag, sh := medians(ms, agentBoard), medians(ms, shellBoard)
	if want := 2 * 2 * 3; len(ag) != want || len(sh) != want {
		t.Fatalf("medians: agent %d points, shell path %d, want %d each\n%s", len(ag), len(sh), want, r)
	}
	// The two boards are the same host measured at the same time: the same numbers within the run's noise. A
	// factor of 2 either way covers that on a quiet machine with room; beside the race suite (8 test binaries on
	// 2 cores) one 16 B point came out 2.2× apart, noise and not the shell path. So the numbers are judged where
	// nothing else runs (test.sh's quiet stage, FLEET_E2E_ALONE=1) and only printed in the parallel suite; the
	// rest (facts, skips, verification, CPU evidence) is judged everywhere.
	const tolerance = 2.0
	judgeNumbers := os.Getenv("FLEET_E2E_ALONE") == "1"
	if !judgeNumbers {
		t.Log("ratios printed, not judged: test.sh's quiet stage judges them (FLEET_E2E_ALONE=1)")
	}
	for k, a := range ag {
		s, ok := sh[k]
		if !ok {
			t.Errorf("%v: measured by the agent, not by the shell path", k)
			continue
		}
		ratio := s / a
		t.Logf("%-5s %-12s %6d B  agent %10.1f MB/s  shell %10.1f MB/s  ratio %.2f", k.mode, k.alg, k.size, a/1e6, s/1e6, ratio)
		if judgeNumbers && math.Abs(math.Log(ratio)) > math.Log(tolerance) {
			t.Errorf("%v: shell path %.1f MB/s, agent %.1f MB/s: more than a factor %.0f apart", k, s/1e6, a/1e6, tolerance)
		}
	}
	// the shell path verifies as the agent does: the board's openssl enc and dgst, judged by the controller
	for _, m := range ms {
		if m.Failed || m.Mode == protocol.ModeKCAPI {
			continue
		}
		if m.Verification != protocol.VerificationOK {
			t.Errorf("%s %s %s %d B: verification %q %q, want ok", m.Board, m.Mode, m.Algorithm, m.BlockSize, m.Verification, m.VerificationDetail)
		}
	}
	// each shell point carries what the agent's carries: CPU time from times, background from /proc/stat
	for _, m := range ms {
		if m.Board != shellBoard || m.Failed {
			continue
		}
		if m.UserS+m.SysS <= 0 || m.CPUPct <= 0 || m.Evidence == nil || m.Evidence.BackgroundPct == nil {
			t.Errorf("shell point %s %s %d: user %v sys %v cpu %v%% evidence %+v: want CPU time from times and background CPU from /proc/stat",
				m.Mode, m.Algorithm, m.BlockSize, m.UserS, m.SysS, m.CPUPct, m.Evidence)
			break
		}
	}
}

// TestShellPathParity: on the sshd boards (dash as /bin/sh, OpenSSH), the same sweep through the agent (board1)
// and through the shell path (board3, agent = "shell") gives the same numbers and facts; nothing is left on the
// shell board (no agent cache, nothing in /tmp, no process).
func TestShellPathParity(t *testing.T) {
	longCase(t)
	w, lab := labWorld(t, sshlab.Options{})
	w.writeInventory(withAgentKey(lab.BoardsTOML(), "shell", "board3"))
	runParity(t, w, "board1", "board3")
	b := lab.Board("board3")
	if out, _ := b.Exec("sh", "-c", "ls -A /tmp; [ ! -e "+b.Home+"/.cache/fleet ] || echo .cache/fleet"); strings.TrimSpace(string(out)) != "" {
		t.Errorf("the shell board keeps %q, want nothing written", out)
	}
	waitIdle(t, b, 10*time.Second)
}

// TestShellPathBusyBox: boards whose /bin/sh (login shell and sh) is BusyBox ash; the shell path measures there,
// on OpenSSH and on Dropbear, with the same numbers as the agent.
func TestShellPathBusyBox(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{BusyBoxSh: true, Dropbear: true})
	w.writeInventory(withAgentKey(lab.BoardsTOML(), "shell", "board3", "board5"))
	for _, name := range []string{"board3", "board5"} {
		if out, err := lab.Board(name).Exec("sh", "-c", "cmp /bin/sh /bin/busybox && echo busybox"); err != nil || strings.TrimSpace(string(out)) != "busybox" {
			t.Fatalf("%s's /bin/sh is not BusyBox: %q (%v)", name, out, err)
		}
	}
	runParity(t, w, "board1", "board3")
	r := w.fleet(append([]string{"run", "--boards", "board5"}, shortSweep...)...)
	if r.code != 0 {
		t.Fatalf("shell path on Dropbear with BusyBox sh: want exit 0\n%s", r)
	}
	if !strings.Contains(r.stdout+r.stderr, "shell path") {
		t.Errorf("board5's summary does not name the shell path\n%s", r)
	}
	for _, name := range []string{"board3", "board5"} {
		waitIdle(t, lab.Board(name), 10*time.Second)
	}
}

// TestShellPathChosenByUname: with no agent key, a board whose uname -m has no Go port (32-bit PowerPC), or
// whose kernel is older than Go's minimum, is measured through its shell, and the summary says which and why;
// agent = "go" refuses that instead.
func TestShellPathChosenByUname(t *testing.T) {
	for _, tc := range []struct {
		name  string
		uname sshlab.FakeUname
		want  string
	}{
		{"no Go port", sshlab.FakeUname{Machine: "ppc"}, `shell path: uname -m "ppc": 32-bit PowerPC, which Go has no port for`},
		{"old kernel", sshlab.FakeUname{Release: "3.0.35-2666-gbdde708"}, "shell path: kernel 3.0.35-2666-gbdde708 is older than Go's minimum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, lab := labWorld(t, sshlab.Options{Uname: tc.uname})
			r := w.fleet(append([]string{"run", "--boards", "board3", "--agent", agentBin}, shortSweep...)...)
			if !strings.Contains(unfold(r.stdout+r.stderr), tc.want) { // the summary folds at 100 columns
				t.Errorf("summary: want %q\n%s", tc.want, r)
			}
			db := w.openDB()
			brs := w.boardRuns(db, w.runs(db)[0].ID)
			if f := brs["board3"].Facts; f == nil || f.Agent != "shell" || !strings.Contains(f.AgentReason, strings.TrimPrefix(tc.want, "shell path: ")) {
				t.Errorf("facts: %v, want agent shell with the reason %q", f != nil && f.Agent == "shell", tc.want)
				if f != nil {
					t.Logf("facts say agent %q, reason %q", f.Agent, f.AgentReason)
				}
			}
			if n := len(w.measurements(db, store.Filter{})); n == 0 {
				t.Errorf("no points measured through the shell\n%s", r)
			}
			b := lab.Board("board3")
			if out, _ := b.Exec("sh", "-c", "[ ! -e "+b.Home+"/.cache/fleet ] || echo .cache/fleet"); strings.TrimSpace(string(out)) != "" {
				t.Errorf("the deploy check left %q on a shell-path board", out)
			}
			w.writeInventory(withAgentKey(lab.BoardsTOML(), "go", "board3"))
			if r := w.fleet(append([]string{"run", "--boards", "board3", "--agent", agentBin}, shortSweep...)...); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "the Go agent cannot run there") {
				t.Errorf(`agent = "go": want the board to fail with the reason`+"\n%s", r)
			}
		})
	}
}

// withBoardKeys adds lines to the boards.toml table of board.
func withBoardKeys(toml, board string, lines ...string) string {
	return strings.Replace(toml, "[boards."+board+"]\n", "[boards."+board+"]\n"+strings.Join(lines, "\n")+"\n", 1)
}

// TestShellPathWrongOutput is the negative path of the shell path's verification with a real corrupting process
// on the board: board3's openssl is testdata/openssl-corrupt (speed passed through, every other enc or dgst
// result with a byte flipped), under dash and under BusyBox ash. The run with the board's real openssl verifies
// ok; the run with the wrapper exits 3 naming the board and the wrong output, and stores its points marked
// wrong; nothing is left in the board's /tmp.
func TestShellPathWrongOutput(t *testing.T) {
	longCase(t)
	for _, tc := range []struct {
		name string
		opts sshlab.Options
	}{{"dash", sshlab.Options{}}, {"busybox", sshlab.Options{BusyBoxSh: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			w, lab := labWorld(t, tc.opts)
			b := lab.Board("board3")
			base := withBoardKeys(lab.BoardsTOML(), "board3", `agent = "shell"`, strings.TrimSpace(anyValidity))
			w.writeInventory(base)
			good := w.fleet(append([]string{"run", "--boards", "board3"}, verifySweep...)...)
			if good.code != 0 {
				t.Fatalf("shell path with the real openssl: exit %d, want 0\n%s", good.code, good)
			}
			for _, p := range w.verifiedPoints(t) {
				if p.Verdict != protocol.VerificationOK {
					t.Errorf("real openssl: %s %s %d: %s %q, want ok", p.Mode, p.Algorithm, p.BlockSize, p.Verdict, p.Detail)
				}
			}

			script, err := os.ReadFile("testdata/openssl-corrupt")
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(b.Home, "openssl-corrupt") // the board's user writes its count beside it
			if err := os.WriteFile(bin, script, 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := b.Exec("sh", "-c", "chown $(stat -c %u:%g "+b.Home+") "+bin); err != nil {
				t.Fatalf("chown the wrapper: %v %s", err, out)
			}
			w.writeInventory(withBoardKeys(base, "board3", fmt.Sprintf("openssl = %q", bin)))
			bad := w.fleet(append([]string{"run", "--boards", "board3"}, verifySweep...)...)
			if bad.code != 3 {
				t.Fatalf("shell path with the corrupting openssl: exit %d, want 3\n%s", bad.code, bad)
			}
			named := regexp.MustCompile(`(?s)board3.*wrong output: (soft|cpu) (aes-128-cbc|sha256): \w+ \d+ B`)
			if !named.MatchString(bad.stderr) {
				t.Errorf("the run's output does not name board, mode, algorithm and size of the wrong output:\n%s", bad.stderr)
			}
			wrong := 0
			for _, p := range w.verifiedPoints(t) {
				if p.Verdict == protocol.VerificationWrong {
					wrong++
				}
			}
			if wrong == 0 {
				t.Errorf("no point of the corrupted shell-path run is marked wrong")
			}
			if out, _ := b.Exec("sh", "-c", "ls -A /tmp"); strings.TrimSpace(string(out)) != "" {
				t.Errorf("the shell board's /tmp keeps %q, want nothing", out)
			}
			waitIdle(t, b, 10*time.Second)
		})
	}
}

// TestShellPathConcurrencyCheck: over SSH to a board whose /bin/sh is dash (OpenSSH) and one whose sh is BusyBox
// ash (Dropbear), an accelerated mode measured through the shell path is verified under parallel workers in the
// one session. board3's openssl is fleet/testdata/shell/openssl-concurrent (right one command at a time, wrong
// when two encs overlap, with the accelerated mode engine:fleetfake): the run exits 3 naming board, mode,
// algorithm and the concurrency check, the point is stored wrong, and nothing is left on the board.
func TestShellPathConcurrencyCheck(t *testing.T) {
	for _, tc := range []struct {
		name, board string
		opts        sshlab.Options
	}{{"dash", "board3", sshlab.Options{}}, {"busybox", "board5", sshlab.Options{BusyBoxSh: true, Dropbear: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			w, lab := labWorld(t, tc.opts)
			b := lab.Board(tc.board)
			script, err := os.ReadFile("../fleet/testdata/shell/openssl-concurrent")
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(b.Home, "openssl-concurrent") // its lock is made beside it, by the board's user
			if err := os.WriteFile(bin, script, 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := b.Exec("sh", "-c", "chown $(stat -c %u:%g "+b.Home+") "+bin); err != nil {
				t.Fatalf("chown the wrapper: %v %s", err, out)
			}
			w.writeInventory(withBoardKeys(lab.BoardsTOML(), tc.board, `agent = "shell"`, fmt.Sprintf("openssl = %q", bin),
				`env = { FLEET_FAKE = "wrong" }`, strings.TrimSpace(anyValidity)))
			r := w.fleet("run", "--boards", tc.board, "--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "4096",
				"--modes", "engine:fleetfake", "--verify-threads", "2")
			if r.code != 3 {
				t.Fatalf("exit %d, want 3\n%s", r.code, r)
			}
			if want := tc.board + ": wrong output: engine:fleetfake aes-128-cbc: concurrency (2 workers, 1 s): "; !strings.Contains(r.stderr, want) {
				t.Errorf("the run's output does not say %q\n%s", want, r)
			}
			ps := w.verifiedPoints(t)
			if len(ps) != 1 || ps[0].Verdict != protocol.VerificationWrong || !strings.Contains(ps[0].Detail, "concurrency") {
				t.Errorf("points %+v: want the one point wrong by the concurrency check", ps)
			}
			if out, _ := b.Exec("sh", "-c", "ls -A /tmp"); strings.TrimSpace(string(out)) != "" {
				t.Errorf("the shell board's /tmp keeps %q, want nothing", out)
			}
			waitIdle(t, b, 10*time.Second)
		})
	}
}
