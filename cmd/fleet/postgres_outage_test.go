package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// runChildEnv makes the test binary run fleet's main with the arguments after "--".
const runChildEnv = "FLEET_RUN_OUTAGE_CHILD"

// runChild runs fleet's main when the test binary was started as a child by startFleet; it reports whether it did.
func runChild() bool {
	if os.Getenv(runChildEnv) == "" {
		return false
	}
	for i, a := range os.Args {
		if a == "--" {
			os.Args = append([]string{"fleet"}, os.Args[i+1:]...)
			break
		}
	}
	main()
	return true
}

type fleetChild struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

// startFleet starts fleet (this test binary re-run as its main, by test) with args, as a separate process
// that real signals reach.
func startFleet(t *testing.T, test string, args ...string) *fleetChild {
	t.Helper()
	p := &fleetChild{done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], append([]string{"-test.run=^" + test + "$", "--"}, args...)...)
	p.cmd.Env = append(os.Environ(), runChildEnv+"=1")
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

// exitCode waits up to timeout for the process and returns its exit code, -1 if it did not end.
func (p *fleetChild) exitCode(timeout time.Duration) int {
	select {
	case <-p.done:
	case <-time.After(timeout):
		return -1
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

// pgRuns lists the runs of the PostgreSQL database dsn, nil while it cannot be read.
func pgRuns(t *testing.T, dsn string) []store.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := store.OpenReadOnly(ctx, dsn)
	if err != nil {
		return nil
	}
	defer db.Close()
	runs, _ := db.Runs(ctx, store.RunFilter{})
	return runs
}

// waitStoredPoint waits until the run in dsn has stored a point.
func waitStoredPoint(t *testing.T, p *fleetChild, dsn string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if runs := pgRuns(t, dsn); len(runs) > 0 && runs[0].Points > 0 {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("fleet ended before storing a point: %v\n%s", p.err, p.stderr.String())
		default:
		}
	}
	t.Fatalf("no point stored within 2 minutes\n%s", p.stderr.String())
}

// outageRun is a local run of some seconds: enough points that the database can fail between two.
var outageRun = []string{"run", "--boards", "local", "--modes", "cpu", "--algorithms", "sha256",
	"--sizes", "16,64,256,1024,8192,16384", "--seconds", "1", "--repeat", "3"}

// ownServer starts a PostgreSQL server of the test's own (the test stops or freezes it) and returns a database
// URL on it.
func ownServer(t *testing.T) (*pgtest.Server, string) {
	t.Helper()
	srv, err := pgtest.Start(t.Context())
	if err != nil {
		pgtest.Skip(t, err)
	}
	t.Cleanup(func() { srv.Stop() })
	dsn, err := srv.CreateDatabase(t.Context(), "fleet")
	if err != nil {
		t.Fatal(err)
	}
	return srv, dsn
}

// TestRunInterruptedWhilePostgresFrozen: Ctrl-C while the database server does not answer (every postgres
// process stopped) ends fleet with exit 130 once the last writes' grace is over, saying that the writes are
// stuck and what became of the run, instead of waiting for the server to come back.
func TestRunInterruptedWhilePostgresFrozen(t *testing.T) {
	if runChild() {
		return
	}
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("starts a PostgreSQL server and a fleet run")
	}
	srv, dsn := ownServer(t)
	p := startFleet(t, "TestRunInterruptedWhilePostgresFrozen", append([]string{"--db", dsn}, outageRun...)...)
	waitStoredPoint(t, p, dsn)
	if err := srv.Freeze(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Thaw() })
	time.Sleep(2 * time.Second) // a batch or two is waiting on the server now
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	// The promise is FinalWriteGrace (5 s) and the lease's release (5 s, at the same time); a loaded machine
	// gets slack, a fleet waiting for the server gets none: it never ends while the server is frozen.
	code := p.exitCode(60 * time.Second)
	took := time.Since(sent)
	if code == -1 {
		t.Fatalf("fleet still running %v after Ctrl-C with the database frozen\n%s", took.Round(time.Second), p.stderr.String())
	}
	t.Logf("exit %d %v after SIGINT", code, took.Round(100*time.Millisecond))
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d\n%s", code, exitInterrupted, p.stderr.String())
	}
	if took > 30*time.Second {
		t.Errorf("fleet took %v to exit after Ctrl-C, want about 5 s", took.Round(time.Second))
	}
	stderr := p.stderr.String()
	if !strings.Contains(stderr, "the database did not answer after the interrupt") || !strings.Contains(stderr, "is lost") {
		t.Errorf("stderr does not say the writes are stuck and lost:\n%s", stderr)
	}
	if strings.Contains(stderr, "context canceled") || strings.Contains(stderr, pgtest.Password) {
		t.Errorf("stderr shows Go's context canceled or the password:\n%s", stderr)
	}
	if err := srv.Thaw(); err != nil {
		t.Fatal(err)
	}
	if runs := pgRuns(t, dsn); len(runs) != 1 || runs[0].Status != protocol.StatusRunning {
		t.Errorf("runs %+v, want the one run left incomplete (running), as stderr says", runs)
	}
}

// TestRunSurvivesPostgresRestart: the database server restarts (down about 1.5 s) while a run is storing
// points: the writes are tried again until it is back, and the run ends as if nothing happened, its lease
// released.
func TestRunSurvivesPostgresRestart(t *testing.T) {
	if runChild() {
		return
	}
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("starts a PostgreSQL server and a fleet run")
	}
	srv, dsn := ownServer(t)
	p := startFleet(t, "TestRunSurvivesPostgresRestart", append([]string{"--db", dsn}, outageRun...)...)
	waitStoredPoint(t, p, dsn)
	srv.Kill()
	time.Sleep(1500 * time.Millisecond)
	if err := srv.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	code := p.exitCode(5 * time.Minute)
	stderr := p.stderr.String()
	if code != exitOK {
		t.Errorf("exit %d after a restart of the database, want %d\n%s", code, exitOK, stderr)
	}
	runs := pgRuns(t, dsn)
	if len(runs) != 1 || runs[0].Status == protocol.StatusRunning || runs[0].Finished.IsZero() {
		t.Fatalf("runs %+v, want one finished run", runs)
	}
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if leases, err := db.Leases(ctx); err != nil || len(leases) != 0 {
		t.Errorf("leases %+v (%v), want none once the run ended", leases, err)
	}
	ms, err := db.Measurements(ctx, store.Filter{RunID: runs[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(ms), 6*3; got != want || runs[0].Points != want {
		t.Errorf("%d points stored (run lists %d), want %d: none lost or stored twice by the retries", got, runs[0].Points, want)
	}
}
