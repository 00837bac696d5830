package e2e

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/store"

	_ "modernc.org/sqlite" // the store's driver, for PRAGMA integrity_check
)

// shortSweep is the sweep every run test uses unless it needs a longer one: 2 modes × 2 sizes, 1 s each.
var shortSweep = []string{"--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "16,1024", "--modes", "soft,cpu"}

// longSweep gives a test time to break something mid-sweep: 2 modes × 4 sizes, 1 s each (about 10 s per board).
var longSweep = []string{"--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "16,256,1024,8192", "--modes", "soft,cpu"}

// longPoints is the number of points of longSweep on one board.
const longPoints = 8

// world is one user's setup: a home directory (no ~/.ssh, no ssh-agent), a boards.toml and a database.
type world struct {
	t    *testing.T
	dir  string
	home string
	inv  string
	db   string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{t: t, dir: dir, home: filepath.Join(dir, "home"), inv: filepath.Join(dir, "boards.toml"), db: filepath.Join(dir, "fleet.db")}
	if err := os.MkdirAll(w.home, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// labWorld starts the four sshd boards and writes their boards.toml.
func labWorld(t *testing.T, opts sshlab.Options) (*world, *sshlab.Lab) {
	t.Helper()
	needOpenSSL(t)
	lab := sshlab.Start(t, opts)
	w := newWorld(t)
	w.writeInventory(lab.BoardsTOML())
	return w, lab
}

// needOpenSSL skips a test that measures with the real agent where openssl is missing (the boards are this host).
func needOpenSSL(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed (apt-get install openssl)")
	}
}

func (w *world) writeInventory(s string) {
	w.t.Helper()
	if err := os.WriteFile(w.inv, []byte(s), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// goEnv is the Go toolchain's view of the caches, passed on so that a build under the test's HOME finds them.
var goEnv = sync.OnceValue(func() []string {
	out, err := exec.Command("go", "env", "GOPATH", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		return nil
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 3 {
		return nil
	}
	return []string{"GOPATH=" + f[0], "GOMODCACHE=" + f[1], "GOCACHE=" + f[2]}
})

// environ is the environment of a fleet process: the world's HOME, no ssh-agent, no FLEET_* defaults.
func (w *world) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "SSH_AUTH_SOCK", k == "XDG_CACHE_HOME", strings.HasPrefix(k, "FLEET_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+w.home)
	return append(env, goEnv()...)
}

// result is what a user sees of one fleet command.
type result struct {
	args           []string
	stdout, stderr string
	code           int
	signal         syscall.Signal // the signal that killed fleet, if one did
}

func (r result) String() string {
	return "fleet " + strings.Join(r.args, " ") + "\n--- exit " + itoa(r.code) + "\n--- stdout\n" + r.stdout + "\n--- stderr\n" + r.stderr
}

func itoa(n int) string { return strconv.Itoa(n) }

// fleetArgs puts the world's --inventory and --db after the command (and subcommand) words; db copy, which
// names its databases with --from and --to, gets no --db.
func (w *world) fleetArgs(args []string) []string {
	n := 1
	if len(args) > 1 && (args[0] == "boards" || args[0] == "db") {
		n = 2
	}
	if len(args) < n {
		n = len(args)
	}
	out := append([]string{}, args[:n]...)
	out = append(out, "--inventory", w.inv)
	if n < 2 || args[0] != "db" || args[1] != "copy" {
		out = append(out, "--db", w.db)
	}
	return append(out, args[n:]...)
}

// fleet runs the fleet binary to its end (at most 3 minutes).
func (w *world) fleet(args ...string) result {
	w.t.Helper()
	p := w.start(args...)
	return p.wait(3 * time.Minute)
}

// proc is a fleet process running in the background.
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	args           []string
	stdout, stderr *sshlab.SyncBuffer
	done           chan struct{}
	res            result
}

func (w *world) start(args ...string) *proc {
	w.t.Helper()
	full := w.fleetArgs(args)
	p := &proc{t: w.t, args: full, stdout: &sshlab.SyncBuffer{}, stderr: &sshlab.SyncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(fleetBin, full...)
	p.cmd.Dir = w.dir
	p.cmd.Env = w.environ()
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.res = result{args: full, stdout: p.stdout.String(), stderr: p.stderr.String()}
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			p.res.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				p.res.code = 128 + int(ws.Signal())
				p.res.signal = ws.Signal()
			}
		default:
			p.res.code = -1
		}
		close(p.done)
	}()
	w.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the process to end; after timeout it kills it and fails the test.
func (p *proc) wait(timeout time.Duration) result {
	p.t.Helper()
	select {
	case <-p.done:
		return p.res
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("fleet did not end within %v:\n%s", timeout, p.res)
		return p.res
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// openDB opens the world's database as the store package does; the test closes it at its end.
func (w *world) openDB() *store.DB {
	w.t.Helper()
	db, err := store.Open(context.Background(), w.db)
	if err != nil {
		w.t.Fatalf("open %s after the run: %v", w.db, err)
	}
	w.t.Cleanup(func() { db.Close() })
	return db
}

func (w *world) runs(db *store.DB) []store.Run {
	w.t.Helper()
	runs, err := db.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		w.t.Fatal(err)
	}
	return runs
}

func (w *world) measurements(db *store.DB, f store.Filter) []store.Measurement {
	w.t.Helper()
	ms, err := db.Measurements(context.Background(), f)
	if err != nil {
		w.t.Fatal(err)
	}
	return ms
}

func (w *world) boardRuns(db *store.DB, run int64) map[string]store.BoardRun {
	w.t.Helper()
	brs, err := db.BoardRuns(context.Background(), run)
	if err != nil {
		w.t.Fatal(err)
	}
	out := map[string]store.BoardRun{}
	for _, br := range brs {
		out[br.Board] = br
	}
	return out
}

// waitPoints polls the database, while a run goes on, until board has at least n points; it fails the test
// when p ends or timeout passes first.
func (w *world) waitPoints(p *proc, board string, n int, timeout time.Duration) {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for !store.IsPostgres(w.db) { // a PostgreSQL database exists before the run
		if _, err := os.Stat(w.db); err == nil {
			break
		}
		if time.Now().After(deadline) || p.exited() {
			w.t.Fatalf("no database %s yet", w.db)
		}
		time.Sleep(100 * time.Millisecond)
	}
	db, err := store.Open(context.Background(), w.db)
	if err != nil {
		w.t.Fatalf("open %s during the run: %v", w.db, err)
	}
	defer db.Close()
	for {
		ms, err := db.Measurements(context.Background(), store.Filter{Board: board})
		if err != nil {
			w.t.Fatalf("query %s during the run: %v", w.db, err)
		}
		if len(ms) >= n {
			return
		}
		if p.exited() {
			w.t.Fatalf("fleet ended before %s had %d points:\n%s", board, n, p.res)
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s has %d points after %v, want %d", board, len(ms), timeout, n)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// sqliteQuery runs one query returning one text value, read-only, with the store's driver.
func sqliteQuery(t *testing.T, path, q string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var s string
	if err := db.QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s on %s: %v", q, path, err)
	}
	return s
}

// integrityOK checks the database file with SQLite's own integrity check.
func integrityOK(t *testing.T, path string) {
	t.Helper()
	out := sqliteQuery(t, path, "PRAGMA integrity_check")
	if out != "ok" {
		t.Errorf("PRAGMA integrity_check on %s = %q, want ok", path, out)
	}
}

// waitIdle waits until nothing but the listening sshd runs on the board: no agent or openssl left behind.
func waitIdle(t *testing.T, b *sshlab.Board, within time.Duration) {
	t.Helper()
	var procs []sshlab.Proc
	for deadline := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		var err error
		if procs, err = b.Processes(); err != nil {
			t.Errorf("processes of %s: %v", b.Name, err)
			return
		}
		if len(procs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Errorf("%s still runs %v after %v: want no agent, openssl or session left", b.Name, procs, within)
}

// key names one measured slot.
type key struct {
	board, mode, alg string
	size             int
}

func keysOf(ms []store.Measurement) map[key]int {
	out := map[key]int{}
	for _, m := range ms {
		out[key{m.Board, m.Mode, m.Algorithm, m.BlockSize}]++
	}
	return out
}

// checkPoint fails the test for a stored point no measurement can have.
func checkPoint(t *testing.T, m store.Measurement) {
	t.Helper()
	if m.Failed && strings.HasPrefix(m.Error, "board lost during ") {
		return // the point in flight when the board went away: stored as such, on purpose
	}
	if m.Failed {
		t.Errorf("%s %s %s %d: failed point: %s", m.Board, m.Mode, m.Algorithm, m.BlockSize, m.Error)
		return
	}
	if !(m.BytesPerSec > 0) || !(m.WallS > 0) || m.UserS < 0 || m.SysS < 0 || m.BytesPerSec > 1e12 {
		t.Errorf("%s %s %s %d: bytes/s %v wall %v user %v sys %v: not a plausible measurement", m.Board, m.Mode, m.Algorithm, m.BlockSize, m.BytesPerSec, m.WallS, m.UserS, m.SysS)
	}
}
