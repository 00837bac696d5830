package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

const (
	crashChildEnv  = "FLEET_STORE_CRASH_CHILD"
	writerChildEnv = "FLEET_STORE_WRITER_CHILD"
)

// crashChild stands in for a controller: it streams points for ever, in batches of 10, and reports when the
// first two batches are committed. The parent kills it with SIGKILL.
func crashChild(path string) {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	db.BatchSize, db.BatchDelay = 10, time.Hour
	w, err := db.BeginRun(ctx, RunInfo{Label: "crash"})
	if err != nil {
		fmt.Println("begin:", err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, i, float64(i+1))); err != nil {
			fmt.Println("point:", err)
			os.Exit(1)
		}
		if i == 24 {
			fmt.Println("committed 20")
		}
	}
}

// SQLite only: a killed writer and the WAL file it leaves are SQLite's concern; a PostgreSQL server rolls back
// a dead client's transaction itself (e2e TestPostgresStoppedMidRun covers the server dying instead).
func TestKilledController(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	path := filepath.Join(t.TempDir(), "fleet.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledController$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "committed 20\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	time.Sleep(100 * time.Millisecond) // let it commit more batches, and be mid-batch when killed
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	ctx := context.Background()
	db := openAt(t, path)
	var check string
	if err := db.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	runs, err := db.Runs(ctx, RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	r := runs[0]
	if r.Status != protocol.StatusRunning || !r.Finished.IsZero() {
		t.Errorf("killed run: status %q, finished %v; want running with no finished time (incomplete)", r.Status, r.Finished)
	}
	if r.Points < 20 || r.Points%10 != 0 {
		t.Errorf("killed run has %d points; want at least the 20 committed, and only whole batches of 10", r.Points)
	}
	ms, err := db.Measurements(ctx, Filter{RunID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.Repeat != i || m.BytesPerSec != float64(i+1) {
			t.Fatalf("point %d: repeat %d, %v B/s; want %d, %v", i, m.Repeat, m.BytesPerSec, i, float64(i+1))
		}
	}
	t.Logf("%d points survived SIGKILL", len(ms))
}

// writerChild stands in for one `fleet run` process: three boards streaming 300 points each in small batches.
func writerChild(path string) error {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.BatchSize = 5
	w, err := db.BeginRun(ctx, RunInfo{Label: "two-processes"})
	if err != nil {
		return err
	}
	errs := make(chan error, 3)
	for b := range 3 {
		go func() {
			board := fmt.Sprint("b", b)
			for i := range 300 {
				if err := w.Point(ctx, board, pt("cpu", "sha256", 64<<(i%4), i, float64(i))); err != nil {
					errs <- err
					return
				}
			}
			errs <- w.BoardFinished(ctx, board, "ok", "")
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			return err
		}
	}
	return w.Finish(ctx, protocol.StatusOK)
}

// Two processes writing one database at once: no "database is locked", every point stored. SQLite only (the
// file lock between processes); PostgreSQL's many writers are TestManyControllers.
func TestTwoProcesses(t *testing.T) {
	if path := os.Getenv(writerChildEnv); path != "" {
		if err := writerChild(path); err != nil {
			fmt.Println("writer:", err)
			os.Exit(1)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	path := filepath.Join(t.TempDir(), "fleet.db")
	seed(t, path) // the schema exists, so both children go straight to writing
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTwoProcesses$")
		cmd.Env = append(os.Environ(), writerChildEnv+"="+path)
		out := new(strings.Builder)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer process %d: %v\n%s", i, err, outs[i])
		}
	}
	db := openAt(t, path)
	runs, err := db.Runs(context.Background(), RunFilter{Label: "two-processes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs stored, want 2", len(runs))
	}
	for _, r := range runs {
		if r.Points != 900 || r.Status != protocol.StatusOK {
			t.Errorf("run %d: %d points, status %s; want 900, ok", r.ID, r.Points, r.Status)
		}
	}
}
