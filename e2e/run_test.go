package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

var threeBoards = []string{"board1", "board2", "board3"}

// boardLine returns the line of out that starts with board's name.
func boardLine(out, board string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == board {
			return l
		}
	}
	return ""
}

// TestBoardsCheck: every board of the lab (root, non-root, one offering an unpinned ECDSA key, one behind a
// ProxyJump) is ready; the first check pushes the agent, the second pushes nothing.
func TestBoardsCheck(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	first := w.fleet("boards", "check", "--all", "--agent", agentBin)
	if first.code != 0 {
		t.Fatalf("first check: want exit 0\n%s", first)
	}
	pushed := regexp.MustCompile(`\bok\b.*\(pushed ([1-9][0-9]*) bytes\)`)
	for _, b := range lab.Boards {
		if l := boardLine(first.stdout, b.Name); !pushed.MatchString(l) {
			t.Errorf("first check of %s: %q, want ok and pushed N>0 bytes\n%s", b.Name, l, first)
		}
	}
	second := w.fleet("boards", "check", "--all", "--agent", agentBin)
	if second.code != 0 {
		t.Fatalf("second check: want exit 0\n%s", second)
	}
	for _, b := range lab.Boards {
		if l := boardLine(second.stdout, b.Name); !strings.Contains(l, " ok ") || !strings.Contains(l, "pushed 0 bytes") {
			t.Errorf("second check of %s: %q, want ok and pushed 0 bytes\n%s", b.Name, l, second)
		}
	}
	if l := boardLine(second.stdout, "board4"); !strings.Contains(l, "x86_64") && !strings.Contains(l, "aarch64") {
		t.Errorf("board4 (through board1) shows no probe summary: %q", l)
	}
	for _, b := range lab.Boards {
		waitIdle(t, b, 5*time.Second)
	}
}

// TestBoardsCheckBuildsAgent is the one test that takes the real build path: no --agent, an empty agent cache in
// a fresh HOME, so fleet cross-compiles the agent from the source embedded in it, then pushes and probes.
func TestBoardsCheckBuildsAgent(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	r := w.fleet("boards", "check", "--boards", "board2")
	if r.code != 0 {
		t.Fatalf("check with a built agent: want exit 0\n%s", r)
	}
	if l := boardLine(r.stdout, "board2"); !regexp.MustCompile(`\bok\b.*pushed [1-9][0-9]* bytes`).MatchString(l) {
		t.Errorf("board2: %q, want ok and the built agent pushed\n%s", l, r)
	}
	if built, _ := filepath.Glob(filepath.Join(w.home, ".cache", "fleet", "agents", "*", "fleet-agent-*")); len(built) == 0 {
		t.Errorf("no agent built in the user's cache %s/.cache/fleet/agents", w.home)
	}
	out, err := lab.Board("board2").Exec("sh", "-c", "ls "+lab.Board("board2").Home+"/.cache/fleet")
	if err != nil || !strings.Contains(string(out), "agent-") {
		t.Errorf("board2's agent cache holds %q (%v), want agent-<sha>", out, err)
	}
}

// TestRunThreeBoards: a full run over three real sshd boards stores every (board, mode, algorithm, size) point,
// and runs, results, history and show return them.
func TestRunThreeBoards(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	args := append([]string{"run", "--boards", strings.Join(threeBoards, ","), "--agent", agentBin, "--label", "e2e"}, shortSweep...)
	r := w.fleet(args...)
	if r.code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	for _, b := range threeBoards {
		if !regexp.MustCompile(`(?m)^\s*` + b + `\s+(ok|suspect|invalid)\s+4 points`).MatchString(r.stderr) {
			t.Errorf("summary lacks %q ok with 4 points\n%s", b, r)
		}
	}
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) != 1 || runs[0].Status != protocol.StatusOK || runs[0].Points != 12 || runs[0].Label != "e2e" {
		t.Fatalf("runs = %+v, want one ok run labelled e2e with 12 points", runs)
	}
	run := runs[0].ID
	ms := w.measurements(db, store.Filter{RunID: run})
	got := keysOf(ms)
	for _, b := range threeBoards {
		for _, mode := range []string{"soft", "cpu"} {
			for _, size := range []int{16, 1024} {
				if n := got[key{b, mode, "aes-128-cbc", size}]; n != 1 {
					t.Errorf("%s %s aes-128-cbc %d: %d points stored, want 1", b, mode, size, n)
				}
			}
		}
	}
	if len(ms) != 12 {
		t.Errorf("%d points stored, want 12", len(ms))
	}
	for _, m := range ms {
		checkPoint(t, m)
	}
	for b, br := range w.boardRuns(db, run) {
		if br.Status != "ok" || br.Facts == nil || br.Facts.OpenSSLVersion == "" {
			t.Errorf("board run %s = status %q, facts %v; want ok with the probe's facts", b, br.Status, br.Facts)
		}
	}

	// What the query commands return.
	runsOut := w.fleet("runs", "--format", "json")
	var rj []struct {
		ID     int64    `json:"id"`
		Status string   `json:"status"`
		Points int      `json:"points"`
		Boards []string `json:"boards"`
	}
	if runsOut.code != 0 || json.Unmarshal([]byte(runsOut.stdout), &rj) != nil || len(rj) != 1 || rj[0].ID != run || rj[0].Points != 12 || len(rj[0].Boards) != 3 {
		t.Errorf("fleet runs --format json = %+v\n%s", rj, runsOut)
	}
	res := w.fleet("results", "--run", fmt.Sprint(run), "--format", "json")
	var rows []struct {
		Run         int64   `json:"run"`
		Board       string  `json:"board"`
		Mode        string  `json:"mode"`
		Algorithm   string  `json:"algorithm"`
		BlockSize   int     `json:"block_size"`
		Threads     int     `json:"threads"`
		BytesPerSec float64 `json:"bytes_per_sec"`
		WallS       float64 `json:"wall_s"`
		UserS       float64 `json:"user_s"`
		SysS        float64 `json:"sys_s"`
		CPUPct      float64 `json:"cpu_pct"`
		Timing      string  `json:"timing"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rows); res.code != 0 || err != nil {
		t.Fatalf("fleet results --format json: %v\n%s", err, res)
	}
	seen := map[key]bool{}
	for _, row := range rows {
		seen[key{row.Board, row.Mode, row.Algorithm, row.BlockSize}] = true
		if row.Run != run || row.Threads != 1 || row.BytesPerSec <= 0 || row.WallS <= 0 || row.Timing != "wall" {
			t.Errorf("results row %+v: want run %d, threads 1, wall timing, positive throughput", row, run)
		}
	}
	if len(rows) != 12 || len(seen) != 12 {
		t.Errorf("fleet results: %d rows over %d series, want 12\n%s", len(rows), len(seen), res.stdout)
	}
	latest := w.fleet("results", "--board", "board2", "--format", "json")
	if err := json.Unmarshal([]byte(latest.stdout), &rows); latest.code != 0 || err != nil || len(rows) != 4 {
		t.Errorf("fleet results --board board2 (latest): %d rows, %v, want 4\n%s", len(rows), err, latest)
	}
	hist := w.fleet("history", "--board", "board3", "--algorithm", "aes-128-cbc", "--mode", "cpu", "--size", "1024")
	if hist.code != 0 || !strings.Contains(hist.stdout, "e2e") {
		t.Errorf("fleet history: want exit 0 and the run's label\n%s", hist)
	}
	show := w.fleet("show", "--raw", fmt.Sprint(run))
	if show.code != 0 {
		t.Errorf("fleet show --raw: exit %d\n%s", show.code, show)
	}
	// the run ended; its word is ok, or suspect/invalid when this busy machine's points were judged so
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^run %d \(e2e\): (ok|suspect|invalid)\b`, run)).MatchString(show.stdout) {
		t.Errorf("fleet show --raw does not head the run with its status word\n%s", show.stdout)
	}
	for _, want := range append([]string{"openssl speed"}, threeBoards...) {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("fleet show --raw lacks %q\n%s", want, show.stdout)
		}
	}
	for _, b := range lab.Boards {
		waitIdle(t, b, 5*time.Second)
	}
}

// TestConcurrentRuns: two fleet processes write one database at once; neither sees "database is locked" and both
// runs are complete. The second run includes board4, reached through board1 (ProxyJump).
func TestConcurrentRuns(t *testing.T) {
	w, _ := labWorld(t, sshlab.Options{})
	a := w.start(append([]string{"run", "--boards", "board1,board2", "--agent", agentBin, "--label", "a"}, shortSweep...)...)
	b := w.start(append([]string{"run", "--boards", "board3,board4", "--agent", agentBin, "--label", "b"}, shortSweep...)...)
	ra, rb := a.wait(3*time.Minute), b.wait(3*time.Minute)
	for _, r := range []result{ra, rb} {
		if r.code != 0 || strings.Contains(r.stderr, "locked") || strings.Contains(r.stderr, "busy") {
			t.Errorf("want exit 0 without lock errors\n%s", r)
		}
	}
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) != 2 {
		t.Fatalf("runs = %+v, want 2", runs)
	}
	want := map[string]int{"a": 8, "b": 8}
	for _, r := range runs {
		if r.Status != protocol.StatusOK || r.Points != want[r.Label] {
			t.Errorf("run %d (%s): status %s, %d points; want ok with %d", r.ID, r.Label, r.Status, r.Points, want[r.Label])
		}
		if n := len(w.measurements(db, store.Filter{RunID: r.ID})); n != want[r.Label] {
			t.Errorf("run %d (%s): %d measurements stored, want %d", r.ID, r.Label, n, want[r.Label])
		}
	}
	integrityOK(t, w.db)
}

// TestShowRawAfterRunID: `fleet show 12 --raw`, as people type it, prints the raw output or refuses the order;
// it must not silently drop --raw (urfave/cli stops parsing flags at the first argument).
func TestShowRawAfterRunID(t *testing.T) {
	needOpenSSL(t)
	w := newWorld(t)
	w.writeInventory("")
	r := w.fleet(append([]string{"run", "--boards", "local", "--agent", agentBin}, "--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "16", "--modes", "cpu")...)
	if r.code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	show := w.fleet("show", "1", "--raw")
	if show.code == 0 && !strings.Contains(show.stdout, "raw output") {
		t.Errorf("fleet show 1 --raw exits 0 without the raw output: --raw was silently ignored\n%s", show)
	}
}

// TestConcurrentRunsOneBoard: two fleet processes measure the same fresh board at once: both deploy the agent
// (to the same content-addressed path) without tripping over each other, and both store their points.
func TestConcurrentRunsOneBoard(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	a := w.start(append([]string{"run", "--boards", "board2", "--agent", agentBin, "--label", "a"}, shortSweep...)...)
	b := w.start(append([]string{"run", "--boards", "board2", "--agent", agentBin, "--label", "b"}, shortSweep...)...)
	for _, r := range []result{a.wait(3 * time.Minute), b.wait(3 * time.Minute)} {
		if r.code != 0 {
			t.Errorf("want exit 0\n%s", r)
		}
	}
	db := w.openDB()
	for _, r := range w.runs(db) {
		if r.Status != protocol.StatusOK || r.Points != 4 {
			t.Errorf("run %d (%s): status %s, %d points; want ok with 4", r.ID, r.Label, r.Status, r.Points)
		}
	}
	check := w.fleet("boards", "check", "--boards", "board2", "--agent", agentBin)
	if !strings.Contains(boardLine(check.stdout, "board2"), "pushed 0 bytes") {
		t.Errorf("the agent left by the two runs is not intact\n%s", check)
	}
	waitIdle(t, lab.Board("board2"), 5*time.Second)
}

// TestFlagOrder: flags in any order, as people type them: a bool flag (--accept-new) followed by flags with
// values, and flags after a command's argument (fleet show 1 --raw).
func TestFlagOrder(t *testing.T) {
	needOpenSSL(t)
	w := newWorld(t)
	w.writeInventory("")
	r := w.fleet("run", "--boards", "local", "--agent", agentBin, "--accept-new", "--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "16", "--modes", "cpu")
	if r.code != 0 || !strings.Contains(summaryLine(r.stderr, "local"), "1 points") {
		t.Errorf("fleet run … --accept-new --seconds 1 …: want exit 0 and 1 point\n%s", r)
	}
	show := w.fleet("show", "1", "--raw")
	if show.code != 0 || !strings.Contains(show.stdout, "raw output") {
		t.Errorf("fleet show 1 --raw: want exit 0 and the raw output\n%s", show)
	}
}

// TestRunJSONStdout: with --format json, stdout carries only the JSON of the run's points; progress and the
// summary go to stderr.
func TestRunJSONStdout(t *testing.T) {
	needOpenSSL(t)
	w := newWorld(t)
	w.writeInventory("")
	r := w.fleet("run", "--boards", "local", "--agent", agentBin, "--format", "json", "--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "16,1024", "--modes", "cpu")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); r.code != 0 || err != nil || len(rows) != 2 {
		t.Errorf("stdout is not the JSON of 2 points (%v)\n%s", err, r)
	}
	if !strings.Contains(r.stderr, "1/2 cpu aes-128-cbc") || summaryLine(r.stderr, "local") == "" {
		t.Errorf("progress and summary are not on stderr\n%s", r)
	}
}
