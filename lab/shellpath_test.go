package lab_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// labParitySweep is what both paths measure on the emulated boards: the modes both can (soft, cpu, the afalg
// engine), 3 repeats of 1 s.
var labParitySweep = []string{"--seconds", "1", "--algorithms", "aes-128-cbc,sha256", "--sizes", "16,16384",
	"--modes", "soft,cpu,afalg", "--repeat", "3"}

// TestLabShellPath boots the lab and runs checkShellPath: a test of its own, so that the lab's other checks and
// this one each have their time.
func TestLabShellPath(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	root, lab, runDir, env := labPaths(t, "qemu-arm64,qemu-armv7")
	fleetBin := buildtest.Fleet(t)
	mustRun(t, ctx, env, root, lab, "build")
	t.Cleanup(func() {
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := command(t, down, env, root, lab, "down"); err != nil {
			t.Errorf("lab down: %v", err)
		}
	})
	mustRun(t, ctx, env, root, lab, "up")
	checkShellPath(t, ctx, root, fleetBin, filepath.Join(runDir, "boards.toml"))
}

// checkShellPath is the shell path on the emulated ARM boards (BusyBox ash as /bin/sh, Dropbear): the same sweep
// through the agent and through the boards' shell (agent = "shell" in a copy of the lab's boards.toml) gives the
// same numbers within the noise of TCG emulation on a busy host, the same facts where both know them, and every
// point verified ok on both paths (but what only the agent can verify: labMedians).
func checkShellPath(t *testing.T, ctx context.Context, root, fleetBin, inv string) {
	t.Helper()
	tmp := t.TempDir()
	b, err := os.ReadFile(inv)
	if err != nil {
		t.Fatal(err)
	}
	shellInv := filepath.Join(tmp, "shell.toml")
	toml := string(b)
	for _, board := range []string{"qemu-arm64", "qemu-armv7"} {
		toml = strings.Replace(toml, "[boards."+board+"]\n", "[boards."+board+"]\nagent = \"shell\"\n", 1)
	}
	if err := os.WriteFile(shellInv, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(inv, db, what string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, fleetBin, append([]string{"--inventory", inv, "--db", db, "run",
			"--boards", "qemu-arm64,qemu-armv7"}, labParitySweep...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		t.Logf("$ fleet run (%s) %s\n%s", what, strings.Join(labParitySweep, " "), out)
		if err != nil {
			t.Fatalf("fleet run (%s): %v", what, err)
		}
	}
	agentDB, shellDB := filepath.Join(tmp, "agent.db"), filepath.Join(tmp, "shell.db")
	run(inv, agentDB, "agent")
	run(shellInv, shellDB, "shell path")
	ag, agFacts := labMedians(t, ctx, agentDB, false)
	sh, shFacts := labMedians(t, ctx, shellDB, true)
	for _, board := range []string{"qemu-arm64", "qemu-armv7"} {
		a, s := agFacts[board], shFacts[board]
		if a == nil || s == nil {
			t.Fatalf("%s: facts missing (agent %v, shell path %v)", board, a != nil, s != nil)
		}
		for _, c := range [][3]string{{"machine", a.Machine, s.Machine}, {"kernel", a.Kernel, s.Kernel},
			{"openssl", a.OpenSSL, s.OpenSSL}, {"cpu", a.CPU.Model, s.CPU.Model}, {"agent", a.Agent + "/shell", "/" + s.Agent},
			{"afalg engine", a.Engines["afalg"], s.Engines["afalg"]}} {
			if c[1] != c[2] {
				t.Errorf("%s facts %s: agent %q, shell path %q", board, c[0], c[1], c[2])
			}
		}
		if a.CPU.Cores != s.CPU.Cores || len(a.ProcCrypto) != len(s.ProcCrypto) {
			t.Errorf("%s facts: cores %d/%d, /proc/crypto entries %d/%d (agent/shell path)", board, a.CPU.Cores, s.CPU.Cores, len(a.ProcCrypto), len(s.ProcCrypto))
		}
	}
	// TCG emulation on a 2-core host shared with other tests: a factor of 2.5 either way is the noise bound
	const tolerance = 2.5
	if want := 2 * (3*2 + 2*2); len(ag) != want || len(sh) != want {
		t.Errorf("points: agent %d, shell path %d, want %d each", len(ag), len(sh), want)
	}
	for k, a := range ag {
		s, ok := sh[k]
		if !ok {
			t.Errorf("%v: measured by the agent, not by the shell path", k)
			continue
		}
		t.Logf("%-10s %-5s %-11s %5d B  agent %8.2f MB/s  shell %8.2f MB/s  ratio %.2f", k.board, k.mode, k.alg, k.size, a.rate/1e6, s.rate/1e6, s.rate/a.rate)
		if math.Abs(math.Log(s.rate/a.rate)) > math.Log(tolerance) {
			t.Errorf("%v: shell path %.2f MB/s, agent %.2f MB/s: more than a factor %.1f apart", k, s.rate/1e6, a.rate/1e6, tolerance)
		}
		if a.driver != s.driver {
			t.Errorf("%v: driver %q by the agent, %q by the shell path", k, a.driver, s.driver)
		}
	}
}

type labKey struct {
	board, mode, alg string
	size             int
}

type labMedian struct {
	rate   float64
	driver string
}

// labMedians reads a run's stored points (median per point over its repeats) and its boards' facts. Every point
// must be verified ok, but on the shell path an engine's inputs larger than openssl enc's 4 KiB pieces (dgst's
// 8 KiB): the agent verifies those with one-piece requests of its own, the shell has nothing but openssl, so they
// are "unknown" and say why, never ok: a path is verified only as far as its requests went.
func labMedians(t *testing.T, ctx context.Context, path string, shell bool) (map[labKey]labMedian, map[string]*protocol.Facts) {
	t.Helper()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms, err := db.Measurements(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	vals := map[labKey][]float64{}
	drivers := map[labKey]string{}
	var run int64
	for _, m := range ms {
		run = m.RunID
		if m.Failed {
			t.Errorf("%s %s %s %d: failed: %s", m.Board, m.Mode, m.Algorithm, m.BlockSize, m.Error)
			continue
		}
		pieces := m.BlockSize > 4096 && !strings.HasPrefix(m.Algorithm, "sha") || m.BlockSize > 8192
		engine := m.Mode == "afalg" || m.Mode == "devcrypto"
		if shell && engine && pieces {
			if m.Verification != protocol.VerificationUnknown || !strings.Contains(m.VerificationDetail, "requests are unverified") {
				t.Errorf("%s: %s %s %s %d: verification %q %q, want unknown: its requests are unverified",
					filepath.Base(path), m.Board, m.Mode, m.Algorithm, m.BlockSize, m.Verification, m.VerificationDetail)
			}
		} else if m.Verification != protocol.VerificationOK {
			t.Errorf("%s: %s %s %s %d: verification %q %q, want ok", filepath.Base(path), m.Board, m.Mode, m.Algorithm, m.BlockSize, m.Verification, m.VerificationDetail)
		}
		k := labKey{m.Board, m.Mode, m.Algorithm, m.BlockSize}
		vals[k] = append(vals[k], m.BytesPerSec)
		drivers[k] = m.Driver
	}
	out := map[labKey]labMedian{}
	for k, v := range vals {
		sort.Float64s(v)
		out[k] = labMedian{rate: v[len(v)/2], driver: drivers[k]}
	}
	brs, err := db.BoardRuns(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]*protocol.Facts{}
	for _, br := range brs {
		facts[br.Board] = br.Facts
	}
	return out, facts
}
