package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// Board leases: fleet processes sharing one database never measure one board at once.

// waitingRE is the progress line of a board that waits for another run's lease; it captures the holder's run.
var waitingRE = regexp.MustCompile(`(\S+)\s+waiting for run (\d+) \(`)

// interval is one run's time on a board, from its stored board run.
type interval struct {
	run               int64
	started, finished time.Time
	status            protocol.Status
	err               string
}

func (iv interval) String() string {
	return fmt.Sprintf("run %d %s %s-%s", iv.run, iv.status, iv.started.Format("15:04:05.000"), iv.finished.Format("15:04:05.000"))
}

// boardIntervals are every run's board runs of board, by start.
func (w *world) boardIntervals(db *store.DB, board string) []interval {
	w.t.Helper()
	var out []interval
	for _, r := range w.runs(db) {
		if br, ok := w.boardRuns(db, r.ID)[board]; ok {
			out = append(out, interval{r.ID, br.Started, br.Finished, br.Status, br.Error})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].started.Before(out[j].started) })
	return out
}

// checkNoOverlap fails the test when two runs' board runs of board overlap in time. A board run that failed
// for want of the lease is left out: it is stored (with the holder in its error) but touched nothing.
func checkNoOverlap(t *testing.T, board string, ivs []interval) {
	t.Helper()
	ivs = slices.DeleteFunc(slices.Clone(ivs), func(iv interval) bool { return strings.Contains(iv.err, " is leased by run ") })
	for i := 1; i < len(ivs); i++ {
		prev, cur := ivs[i-1], ivs[i]
		if prev.finished.IsZero() || cur.started.Before(prev.finished) {
			t.Errorf("%s: run %d started %s before run %d finished %s: two sweeps at once", board, cur.run,
				cur.started.Format(time.RFC3339Nano), prev.run, prev.finished.Format(time.RFC3339Nano))
		}
	}
}

// TestLeaseRace: three fleet processes on one database want board1 at once, two of them board2 as well, in
// opposite orders ({board1, board2} and {board2, board1}, one board at a time each). All finish ok (no deadlock),
// no board's sweeps overlap in time, and the runs that had to wait said for which run. On SQLite and on
// PostgreSQL (a database on a server the test starts).
func TestLeaseRace(t *testing.T) {
	longCase(t)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			w, _ := labWorld(t, sshlab.Options{})
			if backend == "postgres" {
				w.db = pgtest.NewDatabase(t)
			}
			testLeaseRace(t, w)
		})
	}
}

func testLeaseRace(t *testing.T, w *world) {
	base := []string{"run", "--agent", agentBin, "-j", "1"}
	var procs []*proc
	for _, boards := range []string{"board1,board2", "board2,board1", "board1"} {
		procs = append(procs, w.start(append(append(base, "--boards", boards, "--label", "race-"+boards), shortSweep...)...))
	}
	waited := map[string]bool{}
	for _, p := range procs {
		r := p.wait(4 * time.Minute)
		if r.code != 0 {
			t.Errorf("want exit 0\n%s", r)
		}
		for _, m := range waitingRE.FindAllStringSubmatch(r.stderr, -1) {
			waited[m[1]] = true
		}
	}
	db := w.openDB()
	if runs := w.runs(db); len(runs) != 3 {
		t.Fatalf("%d runs stored, want 3", len(runs))
	}
	for _, board := range []string{"board1", "board2"} {
		ivs := w.boardIntervals(db, board)
		want := map[string]int{"board1": 3, "board2": 2}[board]
		if len(ivs) != want {
			t.Errorf("%s measured by %d runs, want %d", board, len(ivs), want)
		}
		for _, iv := range ivs {
			if iv.status != protocol.StatusOK {
				t.Errorf("%s in run %d: %s, want ok", board, iv.run, iv.status)
			}
		}
		checkNoOverlap(t, board, ivs)
		t.Logf("%s: %v", board, ivs)
	}
	if !waited["board1"] {
		t.Error("no run printed a waiting line for board1, which three runs wanted at once")
	}
	if ls, err := db.Leases(t.Context()); err != nil || len(ls) != 0 {
		t.Errorf("leases left after every run ended: %+v, %v", ls, err)
	}
}

// TestLeaseWaitGivesUp: a run that wants a board another run is sweeping waits --lease-wait 1s, then fails that
// board with exit 3 and a cause naming the holder; its other board is measured.
func TestLeaseWaitGivesUp(t *testing.T) {
	w, _ := labWorld(t, sshlab.Options{})
	holder := w.start(append([]string{"run", "--agent", agentBin, "--boards", "board1", "--label", "nightly"}, longSweep...)...)
	w.waitPoints(holder, "board1", 1, 2*time.Minute)
	r := w.fleet(append([]string{"run", "--agent", agentBin, "--boards", "board1,board3", "--lease-wait", "1s"}, shortSweep...)...)
	if r.code != 3 {
		t.Errorf("want exit 3\n%s", r)
	}
	if !regexp.MustCompile(`board1\s+waiting for run 1 \(nightly, host `).MatchString(r.stderr) {
		t.Errorf("no waiting line naming run 1\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^\s*board1\s+failed .*\n\s+cause: board1 is leased by run 1 \(nightly, host \S+ pid \d+, since (\d{4}-\d\d-\d\d )?[0-9:]+\), expires (\d{4}-\d\d-\d\d )?[0-9:]+; gave up after waiting 1s`).MatchString(unfold(r.stderr)) {
		t.Errorf("board1 not failed with the holder named\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^\s*board3\s+(ok|suspect|invalid)\s+[1-9]`).MatchString(r.stderr) {
		t.Errorf("board3 was not measured\n%s", r)
	}
	if hr := holder.wait(3 * time.Minute); hr.code != 0 {
		t.Errorf("the holder: want exit 0\n%s", hr)
	}
	db := w.openDB()
	ivs := w.boardIntervals(db, "board1")
	if len(ivs) != 2 || !strings.Contains(ivs[1].err, "board1 is leased by run 1") {
		t.Errorf("board1's board runs = %v, want the second failed for want of the lease", ivs)
	}
	checkNoOverlap(t, "board1", ivs)
}

// TestLeaseReleasedOnInterrupt: Ctrl-C of the run holding a board gives the board back at once: the run
// waiting for it starts within seconds, not after the lease's time to live (60 s). While it waits, fleet boards
// list names the holder.
func TestLeaseReleasedOnInterrupt(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	holder := w.start(append([]string{"run", "--agent", agentBin, "--boards", "board1", "--label", "nightly"}, longSweep...)...)
	w.waitPoints(holder, "board1", 1, 2*time.Minute)
	waiter := w.start(append([]string{"run", "--agent", agentBin, "--boards", "board1", "--lease-wait", "5m"}, shortSweep...)...)
	if _, ok := stderrLine(t, waiter, regexp.MustCompile(`board1\s+waiting for run 1 \(nightly, `), time.Minute); !ok {
		t.Fatalf("no waiting line from the second run\n%s", waiter.stderr.String())
	}
	checkListedHolder(t, w, "board1", 1)
	if err := holder.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	interrupted := time.Now()
	if hr := holder.wait(time.Minute); hr.code != 130 {
		t.Errorf("the interrupted holder: want exit 130\n%s", hr)
	}
	r := waiter.wait(3 * time.Minute)
	if r.code != 0 {
		t.Errorf("the waiting run: want exit 0\n%s", r)
	}
	db := w.openDB()
	ivs := w.boardIntervals(db, "board1")
	checkNoOverlap(t, "board1", ivs)
	if len(ivs) != 2 || ivs[0].status != protocol.StatusInterrupted || ivs[1].status != protocol.StatusOK {
		t.Fatalf("board1's board runs = %+v, want the holder's interrupted, then the waiter's ok", ivs)
	}
	if d := ivs[1].started.Sub(interrupted); d > 20*time.Second {
		t.Errorf("the waiting run started %v after the holder's Ctrl-C: the lease was not released at once", d.Round(time.Second))
	} else {
		t.Logf("the waiting run started %v after the holder's Ctrl-C", d.Round(100*time.Millisecond))
	}
	waitIdle(t, lab.Board("board1"), 10*time.Second)
}

// TestLeaseTakenAfterKill: SIGKILL of the run holding a board leaves its lease behind, but its process is gone
// and it held the lease from this machine (the same boot and PID namespace): the waiting run takes the board
// at once, saying so, and marks the killed run interrupted, without waiting for the lease's time to live
// (--lease-ttl 60s here, far longer than the test allows). A holder on another machine still waits for the
// lease to expire (store's TestLeaseOfGoneProcessTakenOver covers both).
func TestLeaseTakenAfterKill(t *testing.T) {
	longCase(t)
	w, _ := labWorld(t, sshlab.Options{})
	const ttl = 60 * time.Second
	holder := w.start(append([]string{"run", "--agent", agentBin, "--boards", "board1", "--lease-ttl", ttl.String()}, longSweep...)...)
	w.waitPoints(holder, "board1", 1, 2*time.Minute)
	waiter := w.start(append([]string{"run", "--agent", agentBin, "--boards", "board1", "--lease-wait", "5m"}, shortSweep...)...)
	if _, ok := stderrLine(t, waiter, regexp.MustCompile(`board1\s+waiting for run 1 \(`), time.Minute); !ok {
		t.Fatalf("no waiting line from the second run\n%s", waiter.stderr.String())
	}
	if err := holder.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	holder.wait(time.Minute)
	if _, ok := stderrLine(t, waiter, regexp.MustCompile(`took the lease at once from run 1 .*its process is gone`), time.Minute); !ok {
		t.Errorf("the waiting run does not say it took the lease of a gone process\n%s", waiter.stderr.String())
	}
	r := waiter.wait(3 * time.Minute)
	if r.code != 0 {
		t.Errorf("the waiting run: want exit 0\n%s", r)
	}
	db := w.openDB()
	ivs := w.boardIntervals(db, "board1")
	if len(ivs) != 2 || ivs[0].status != protocol.StatusInterrupted || ivs[1].status != protocol.StatusOK {
		t.Fatalf("board1's board runs = %+v, want the killed holder's interrupted, then the waiter's ok", ivs)
	}
	if d := ivs[1].started.Sub(killed); d > ttl/2 {
		t.Errorf("the waiting run started %v after the holder was killed; want at once, long before the lease's %v", d.Round(100*time.Millisecond), ttl)
	} else {
		t.Logf("the waiting run started %v after the holder was killed (lease ttl %v)", d.Round(100*time.Millisecond), ttl)
	}
}

// checkListedHolder: fleet boards list --format json names run as board's lease holder.
func checkListedHolder(t *testing.T, w *world, board string, run int64) {
	t.Helper()
	r := w.fleet("boards", "list", "--format", "json")
	var got struct {
		Boards []struct {
			Name  string `json:"name"`
			Lease *struct {
				Run int64 `json:"run"`
			} `json:"lease"`
		} `json:"boards"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("boards list --format json: %v\n%s", err, r)
	}
	for _, b := range got.Boards {
		if b.Name == board {
			if b.Lease == nil || b.Lease.Run != run {
				t.Errorf("boards list shows %s's lease %+v, want run %d\n%s", board, b.Lease, run, r)
			}
			return
		}
	}
	t.Errorf("boards list does not show %s\n%s", board, r)
}
