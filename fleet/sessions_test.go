package fleet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/inventory"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// TestRunSessionsPerBoard guards the fixed cost of a board: every session is round trips, and a process or two on
// the board. A board that has the agent costs one session (the deploy check, which execs the agent's measure:
// probe and sweep on the same stdin and stdout); the first run three more for the push (the check that finds no
// agent, the put and its verification, then measure). A change that adds a session (a separate uname, $HOME,
// probe…) fails here.
func TestRunSessionsPerBoard(t *testing.T) {
	opts := runOptions(t)
	board := &hostTransport{home: t.TempDir()}
	var log bytes.Buffer
	var mu sync.Mutex
	opts.Logf = func(f string, a ...any) { mu.Lock(); fmt.Fprintf(&log, f+"\n", a...); mu.Unlock() }
	opts.Boards = []inventory.Board{{Name: "am64x", Host: "am64x.lab"}}
	opts.Sweep.Modes = []string{"cpu"}
	opts.Sweep.Sizes = []int{64}
	opts.Sweep.Seconds = 0.1
	opts.Dial = func(context.Context, inventory.Board) (Transport, error) { return board, nil }
	var traced []string
	opts.Trace = func(b, what string, _ time.Time, _ time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if i := strings.Index(what, "agent-"); i >= 0 {
			what = what[:i] + "AGENT" + what[strings.IndexByte(what[i:], ' ')+i:]
		}
		traced = append(traced, b+" "+what)
	}

	for i, want := range []struct {
		runs, puts int
		log        string
	}{
		{runs: 3, puts: 1, log: "pushed agent to am64x"},                  // deploy check, put, check again; measure
		{runs: 1, puts: 0, log: "unchanged since it was verified"},        // deploy check (cached checksum) execs measure
		{runs: 1, puts: 0, log: "pushed 0 bytes (verified on the board)"}, // after a touch: hashed again, not pushed
	} {
		if i == 2 {
			// the agent's mtime changes: the checksum file no longer vouches for it
			entries, _ := filepath.Glob(filepath.Join(board.home, ".cache/fleet/agent-*[0-9a-f]"))
			if len(entries) != 1 {
				t.Fatalf("agents on the board: %v", entries)
			}
			if out, err := exec.Command("touch", "-d", "2001-01-01", entries[0]).CombinedOutput(); err != nil {
				t.Fatalf("touch: %v: %s", err, out)
			}
		}
		board.runs, board.puts = nil, 0
		log.Reset()
		traced = nil
		sink := newMemSink()
		outs, err := Run(context.Background(), opts, sink)
		if err != nil {
			t.Fatalf("run %d: %v (%+v)", i+1, err, outs)
		}
		if len(sink.points["am64x"]) == 0 {
			t.Errorf("run %d measured nothing", i+1)
		}
		if len(board.runs) != want.runs || board.puts != want.puts {
			t.Errorf("run %d: %d sessions and %d puts, want %d and %d:\n%s", i+1, len(board.runs), board.puts,
				want.runs, want.puts, strings.Join(board.runs, "\n"))
		}
		if !strings.Contains(log.String(), want.log) {
			t.Errorf("run %d: log does not say %q:\n%s", i+1, want.log, log.String())
		}
		var agentSessions int
		for _, r := range board.runs {
			switch {
			case strings.Contains(r, "/agent-"):
				agentSessions++
				if !strings.Contains(r, " measure") {
					t.Errorf("run %d: agent session %q, want one `measure` (probe and sweep together)", i+1, r)
				}
			case strings.HasPrefix(r, "sh -c # deploy check, then the agent") && i > 0:
				agentSessions++ // the check execs the agent's measure
			}
		}
		if agentSessions != 1 {
			t.Errorf("run %d: %d agent sessions, want 1", i+1, agentSessions)
		}
		if i == 1 {
			// --trace names every phase and session, in the order they end, and inside the sweep each path's
			// verification and each point (its child's wall time and openssl's own), which the phases leave out
			var phases, points, verifies []string
			for _, l := range traced {
				switch {
				case strings.HasPrefix(l, "am64x point "):
					points = append(points, l)
				case strings.HasPrefix(l, "am64x verify "):
					verifies = append(verifies, l)
				default:
					phases = append(phases, l)
				}
			}
			want := "am64x connect|am64x deploy|am64x probe|" +
				"am64x session sh -c (deploy check, then the agent)|am64x sweep|am64x close"
			if got := strings.Join(phases, "|"); got != want {
				t.Errorf("run %d traced\n%s\nwant\n%s", i+1, got, want)
			}
			if len(points) != len(sink.points["am64x"]) || len(points) == 0 ||
				!strings.HasPrefix(points[0], "am64x point cpu sha256 64 B ") || !strings.Contains(points[0], "openssl measured") {
				t.Errorf("run %d: point lines %q for %d points, want one each (`point cpu sha256 64 B digest #N: child …`)",
					i+1, points, len(sink.points["am64x"]))
			}
			if len(verifies) != 1 || !strings.HasPrefix(verifies[0], "am64x verify cpu sha256") {
				t.Errorf("run %d: verification lines %q, want one for cpu sha256", i+1, verifies)
			}
		}
	}
}

// TestDeployHashesOnlyWhenChanged: the board hashes the agent after a push and whenever the agent's size, inode,
// mtime or ctime changed since, and trusts its checksum file otherwise; a corrupt agent is still caught.
func TestDeployHashesOnlyWhenChanged(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(t.TempDir(), "hashes")
	for _, tool := range []string{"sh", "uname", "mkdir", "chmod", "wc", "cat", "stat", "mv"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not on PATH", tool)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Skip("sha256sum not on PATH")
	}
	wrapper := "#!/bin/sh\necho x >> " + count + "\nexec " + sum + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "sha256sum"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	hashes := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "x")
	}
	ctx := context.Background()
	agentPath, size := fakeAgent(t)
	board := &hostTransport{home: t.TempDir(), path: dir}
	opts := DeployOptions{Board: "am18x"}

	steps := []struct {
		name           string
		before         func(remote string)
		pushed, hashed int
	}{
		{"first deployment", nil, 1, 1},
		{"unchanged", nil, 0, 0},
		{"unchanged again", nil, 0, 0},
		{"touched", func(p string) {
			if err := os.Chtimes(p, time.Time{}, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
		}, 0, 1},
		{"unchanged after the touch", nil, 0, 0},
		{"corrupt, same size", func(p string) { flipByte(t, p) }, 1, 2}, // hashed, pushed, hashed again
		{"corrupt, same size, mtime set back", func(p string) {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			flipByte(t, p)
			// what touch -r can do; the ctime it cannot set back still tells
			if err := os.Chtimes(p, time.Time{}, fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, 1, 2},
	}
	var remote string
	for _, s := range steps {
		if s.before != nil {
			s.before(remote)
		}
		n := hashes()
		res, err := Deploy(ctx, board, agentPath, opts)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		remote = res.RemotePath
		if got, want := res.Pushed, int64(s.pushed)*size; got != want {
			t.Errorf("%s: pushed %d bytes, want %d", s.name, got, want)
		}
		if got := hashes() - n; got != s.hashed {
			t.Errorf("%s: the board hashed the agent %d times, want %d", s.name, got, s.hashed)
		}
	}
}

// TestRunSessionsLab counts, in real OpenSSH servers' own logs, the sessions a run opens on each board: three
// boards in parallel (root and non-root), the first run pushing the agent, the second finding it there. A warm
// board costs one session (deploy check, probe and sweep); a regression that adds one fails here, whatever the
// test's own transport wrapper would say.
func TestRunSessionsLab(t *testing.T) {
	opts := runOptions(t)
	lab := sshlab.Start(t, sshlab.Options{LogSessions: true})
	var boards []*sshlab.Board
	for _, b := range lab.Boards {
		if b.Server == "openssh" || b.Server == "" {
			boards = append(boards, b)
			opts.Boards = append(opts.Boards, b.Inventory())
		}
		if len(boards) == 3 {
			break
		}
	}
	if len(boards) == 0 {
		t.Skip("no OpenSSH board in the lab")
	}
	home := t.TempDir()
	opts.Dial = func(ctx context.Context, b inventory.Board) (Transport, error) {
		return sshtransport.Dial(ctx, b, sshtransport.Options{Home: home, AgentSocket: "none", Retries: -1})
	}
	opts.Sweep.Modes = []string{"cpu"}
	opts.Sweep.Sizes = []int{64}
	opts.Sweep.Seconds = 0.1
	for run, want := range []int{4, 1} { // cold: check, put, check again, measure; warm: one
		before := make([]int, len(boards))
		for i, b := range boards {
			before[i] = b.SessionsOpened()
		}
		outs, err := Run(context.Background(), opts, newMemSink())
		if err != nil {
			t.Fatalf("run %d: %v (%+v)", run+1, err, outs)
		}
		for i, b := range boards {
			if got := b.SessionsOpened() - before[i]; got != want {
				t.Errorf("run %d: %s's sshd logged %d sessions, want %d", run+1, b.Name, got, want)
			}
		}
	}
}
