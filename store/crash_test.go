package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

const crashChildEnv = "FLEET_STORE_CRASH_CHILD"

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
	if r.Status != RunRunning || !r.Finished.IsZero() {
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
