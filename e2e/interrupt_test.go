package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// stderrLine waits until the process's stderr has a line matching re and returns when it saw it.
func stderrLine(t *testing.T, p *proc, re *regexp.Regexp, timeout time.Duration) (string, bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m := re.FindString(p.stderr.String()); m != "" {
			return m, true
		}
		if p.exited() {
			if m := re.FindString(p.stderr.String()); m != "" {
				return m, true
			}
			return "", false
		}
	}
	return "", false
}

// TestLinkCutMidSweep: one board's cable is pulled after its first points: the others finish, the cut board's
// points so far are kept, it is reported within 10 s (20 s allowed on this shared machine), the run is partial,
// exit 3.
func TestLinkCutMidSweep(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	p := w.start(append([]string{"run", "--boards", strings.Join(threeBoards, ","), "--agent", agentBin}, longSweep...)...)
	w.waitPoints(p, "board2", 1, 2*time.Minute)
	b2 := lab.Board("board2")
	if err := b2.CutLink(); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	t.Cleanup(func() { b2.RestoreLink() })
	if _, ok := stderrLine(t, p, regexp.MustCompile(`board2\s+(partial|failed)\b.*`), 60*time.Second); !ok {
		t.Errorf("board2 not reported partial or failed within 60 s of its link cut\n%s", p.stderr.String())
	} else if d := time.Since(cut); d > 20*time.Second {
		t.Errorf("board2 reported %v after its link was cut; promised within 10 s (20 s allowed here)", d.Round(time.Second))
	} else {
		t.Logf("board2 reported %v after its link was cut", d.Round(100*time.Millisecond))
	}
	r := p.wait(3 * time.Minute)
	if r.code != 3 {
		t.Errorf("want exit 3\n%s", r)
	}
	// a board lost under a point fails (its points before are kept), naming the point in flight
	if !regexp.MustCompile(`(?m)^\s*board2\s+failed\s+[1-9][0-9]* points`).MatchString(r.stderr) ||
		!strings.Contains(r.stderr, "connection lost") || !strings.Contains(r.stderr, "board lost during") {
		t.Errorf("summary does not show board2 failed with its points, the point in flight and the lost connection\n%s", r)
	}
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) != 1 || runs[0].Status != protocol.StatusPartial {
		t.Fatalf("runs = %+v, want one partial run", runs)
	}
	ms := w.measurements(db, store.Filter{RunID: runs[0].ID})
	count := map[string]int{}
	for _, m := range ms {
		count[m.Board]++
		checkPoint(t, m)
	}
	if count["board1"] != longPoints || count["board3"] != longPoints {
		t.Errorf("points board1 %d, board3 %d; want %d each (they were not cut)", count["board1"], count["board3"], longPoints)
	}
	if count["board2"] < 1 || count["board2"] >= longPoints {
		t.Errorf("board2 kept %d points, want those measured before the cut (1 to %d)", count["board2"], longPoints-1)
	}
	brs := w.boardRuns(db, runs[0].ID)
	if br := brs["board2"]; br.Status != "failed" || !strings.Contains(br.Error, "board2") || !strings.Contains(br.Error, "board lost during") {
		t.Errorf("board run board2 = %q %q, want failed with a cause naming board2 and the point in flight", br.Status, br.Error)
	}
	if err := b2.RestoreLink(); err != nil {
		t.Fatal(err)
	}
	for _, b := range lab.Boards[:3] {
		waitIdle(t, b, 20*time.Second) // board2's sshd notices the dead client through its own timeouts
	}
}

// TestControllerKilled: fleet is SIGKILLed mid-run. The database opens cleanly, the points stored before the kill
// are intact, `fleet runs` shows the run as incomplete, and no agent or openssl is left on any board.
func TestControllerKilled(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	p := w.start(append([]string{"run", "--boards", strings.Join(threeBoards, ","), "--agent", agentBin}, longSweep...)...)
	w.waitPoints(p, "board1", 2, 2*time.Minute)
	// What a reader saw committed just before the kill must be there, unchanged, afterwards.
	before := w.measurements(w.openDB(), store.Filter{})
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := p.wait(30 * time.Second)
	if r.code != 128+int(syscall.SIGKILL) {
		t.Fatalf("fleet was not killed\n%s", r)
	}
	integrityOK(t, w.db)
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) != 1 || runs[0].Status != protocol.StatusRunning || !runs[0].Finished.IsZero() {
		t.Fatalf("runs = %+v, want one run still marked running, without an end", runs)
	}
	ms := w.measurements(db, store.Filter{RunID: runs[0].ID})
	if len(ms) < 2 {
		t.Errorf("%d points survived the kill, want at least the 2 seen before it", len(ms))
	}
	for _, m := range ms {
		checkPoint(t, m)
	}
	after := map[int64]store.Measurement{}
	for _, m := range ms {
		after[m.ID] = m
	}
	for _, m := range before {
		if got, ok := after[m.ID]; !ok || !reflect.DeepEqual(got.Point, m.Point) || got.Board != m.Board {
			t.Errorf("point %d (%s %s %d) committed before the kill is lost or changed: %+v", m.ID, m.Board, m.Mode, m.BlockSize, got.Point)
		}
	}
	list := w.fleet("runs")
	if list.code != 0 || !regexp.MustCompile(`(?m)^\s*1\s.*incomplete`).MatchString(list.stdout) {
		t.Errorf("fleet runs does not show run 1 as incomplete\n%s", list)
	}
	if show := w.fleet("show", "1"); show.code != 0 || !strings.Contains(show.stdout, "run 1: incomplete") {
		t.Errorf("fleet show 1 does not say the run is incomplete\n%s", show)
	}
	res := w.fleet("results", "--run", "1", "--format", "json")
	var rows []json.RawMessage
	if err := json.Unmarshal([]byte(res.stdout), &rows); res.code != 0 || err != nil || len(rows) != len(ms) {
		t.Errorf("fleet results --run 1: %d rows (%v), want the %d stored points\n%s", len(rows), err, len(ms), res)
	}
	// The kernel closes the dead controller's connections; each sshd ends its session, the agent sees EOF on stdin
	// and kills its openssl.
	for _, b := range lab.Boards[:3] {
		waitIdle(t, b, 10*time.Second)
	}
}

// TestInterrupt: Ctrl-C mid-run exits 130, stores the run as interrupted with the points so far, and leaves no
// agent or openssl on any board.
func TestInterrupt(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	p := w.start(append([]string{"run", "--boards", strings.Join(threeBoards, ","), "--agent", agentBin}, longSweep...)...)
	w.waitPoints(p, "board3", 2, 2*time.Minute)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	r := p.wait(60 * time.Second)
	if r.code != 130 {
		t.Errorf("want exit 130 after Ctrl-C\n%s", r)
	}
	if d := time.Since(sent); d > 20*time.Second {
		t.Errorf("fleet took %v to stop after Ctrl-C; want prompt (allowing 20 s here)", d.Round(time.Second))
	}
	for _, b := range lab.Boards[:3] {
		waitIdle(t, b, 5*time.Second)
	}
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) != 1 || runs[0].Status != protocol.StatusInterrupted || runs[0].Finished.IsZero() {
		t.Fatalf("runs = %+v, want one interrupted run with an end time", runs)
	}
	ms := w.measurements(db, store.Filter{RunID: runs[0].ID})
	if len(ms) < 2 || len(ms) >= 3*longPoints {
		t.Errorf("%d points stored, want those measured before Ctrl-C (2 to %d)", len(ms), 3*longPoints-1)
	}
	for _, m := range ms {
		checkPoint(t, m)
	}
	if runs[0].Points != len(ms) {
		t.Errorf("run lists %d points, %d stored", runs[0].Points, len(ms))
	}
	for name, br := range w.boardRuns(db, runs[0].ID) {
		if br.Status != "interrupted" && br.Status != "ok" {
			t.Errorf("board run %s = %q, want interrupted", name, br.Status)
		}
	}
	show := w.fleet("show", fmt.Sprint(runs[0].ID))
	if !strings.Contains(show.stdout, "interrupted") {
		t.Errorf("fleet show does not say interrupted\n%s", show)
	}
}

// TestSecondInterrupt: SIGTERM stops a run like Ctrl-C (exit 130, stored as interrupted). With a board whose link
// is dead, so that stopping it takes a while, Ctrl-C still ends fleet promptly, and a second Ctrl-C while fleet is
// stopping ends it at once. No agent or openssl is left on the boards.
func TestSecondInterrupt(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	b3 := lab.Board("board3")
	t.Cleanup(func() { b3.RestoreLink() })
	args := append([]string{"run", "--boards", "board1,board3", "--agent", agentBin}, longSweep...)
	p := w.start(args...)
	w.waitPoints(p, "board1", 1, 2*time.Minute)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if r := p.wait(60 * time.Second); r.code != 130 {
		t.Errorf("want exit 130 after SIGTERM\n%s", r)
	}
	db := w.openDB()
	if runs := w.runs(db); len(runs) != 1 || runs[0].Status != protocol.StatusInterrupted {
		t.Errorf("runs = %+v, want one interrupted run", runs)
	}

	// One Ctrl-C with board3's link cut: prompt, exit 130, stored as interrupted.
	p = w.start(args...)
	w.waitPoints(p, "board3", len(w.measurements(db, store.Filter{Board: "board3"}))+1, 2*time.Minute)
	if err := b3.CutLink(); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	p.cmd.Process.Signal(syscall.SIGINT)
	r := p.wait(60 * time.Second)
	if d := time.Since(sent); r.code != 130 || d > 20*time.Second {
		t.Errorf("Ctrl-C with a dead board: exit %d after %v; want 130, promptly (20 s allowed here)\n%s", r.code, d.Round(100*time.Millisecond), r)
	} else {
		t.Logf("Ctrl-C with a dead board: fleet ended after %v", d.Round(10*time.Millisecond))
	}
	if runs := w.runs(db); len(runs) != 2 || runs[0].Status != protocol.StatusInterrupted {
		t.Errorf("runs = %+v, want the second interrupted too", runs)
	}
	b3.RestoreLink()

	// Two Ctrl-C: the second ends fleet at once, however long stopping the dead board would take.
	p = w.start(args...)
	w.waitPoints(p, "board3", len(w.measurements(db, store.Filter{Board: "board3"}))+1, 2*time.Minute)
	if err := b3.CutLink(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGINT)
	r = p.wait(60 * time.Second)
	if r.signal != syscall.SIGINT {
		t.Errorf("the second Ctrl-C did not end fleet at once (it exited %d by itself)\n%s", r.code, r)
	}
	integrityOK(t, w.db)
	b3.RestoreLink()
	for _, b := range []*sshlab.Board{lab.Board("board1"), b3} {
		waitIdle(t, b, 20*time.Second)
	}
}

// TestInterruptDuringPush: Ctrl-C while the agent is being pushed over a slow link (the host side of the board's
// veth shaped to 2 Mbit/s with tc tbf, so the 3 MB push takes seconds): exit 130 promptly, the run stored as
// interrupted, and on the board neither a half-written agent nor a process is left.
func TestInterruptDuringPush(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	if !lab.Namespaced {
		t.Skip("needs the boards' network namespaces (root) to slow a board's link with tc")
	}
	b := lab.Board("board3")
	slowLink(t, b, "2mbit")
	p := w.start(append([]string{"run", "--boards", "board3", "--agent", agentBin}, shortSweep...)...)
	if _, ok := stderrLine(t, p, regexp.MustCompile(`board3\s+deploy`), time.Minute); !ok {
		t.Fatalf("board3 never reached deploy\n%s", p.stderr.String())
	}
	time.Sleep(time.Second) // well into the push
	if strings.Contains(p.stderr.String(), "pushed agent to board3") {
		t.Skipf("the push ended within a second despite the policed link\n%s", p.stderr.String())
	}
	sent := time.Now()
	p.cmd.Process.Signal(syscall.SIGINT)
	r := p.wait(60 * time.Second)
	if d := time.Since(sent); r.code != 130 || d > 20*time.Second {
		t.Errorf("Ctrl-C during the push: exit %d after %v; want 130, promptly (20 s allowed here)\n%s", r.code, d.Round(100*time.Millisecond), r)
	}
	waitIdle(t, b, 10*time.Second)
	if out, err := b.Exec("sh", "-c", "ls -A "+b.Home+"/.cache/fleet"); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("after the interrupted push the agent dir holds %q (%v), want nothing", out, err)
	}
	db := w.openDB()
	if runs := w.runs(db); len(runs) != 1 || runs[0].Status != protocol.StatusInterrupted {
		t.Errorf("runs = %+v, want one interrupted run", runs)
	}
}

// slowLink shapes the traffic from the host to the board with tc tbf on the host's end of the board's veth. It
// returns the function that removes the shaping (also run at the end of the test).
func slowLink(t *testing.T, b *sshlab.Board, rate string) (undo func()) {
	t.Helper()
	out, err := b.Exec("ip", "-o", "link", "show", "eth0")
	m := regexp.MustCompile(`eth0@if(\d+)`).FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Skipf("find the veth of %s: %v: %s", b.Name, err, out)
	}
	links, err := exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		t.Skipf("ip link show: %v", err)
	}
	l := regexp.MustCompile(`(?m)^` + m[1] + `: ([^@:]+)`).FindStringSubmatch(string(links))
	if l == nil {
		t.Skipf("no host link with index %s", m[1])
	}
	if out, err := exec.Command("tc", "qdisc", "add", "dev", l[1], "root", "tbf", "rate", rate, "burst", "32kbit", "latency", "400ms").CombinedOutput(); err != nil {
		t.Skipf("tc qdisc add dev %s: %v: %s", l[1], err, out)
	}
	var once sync.Once
	undo = func() { once.Do(func() { exec.Command("tc", "qdisc", "del", "dev", l[1], "root").Run() }) }
	t.Cleanup(undo)
	return undo
}
