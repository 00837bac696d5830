package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// clock is a deterministic DB.Now: every call is one second after the previous one.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// openTest opens a new database in t.TempDir with a deterministic clock.
func openTest(t *testing.T) *DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "fleet.db"))
}

func openAt(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s) = %v", path, err)
	}
	db.Now = newClock().now
	t.Cleanup(func() { db.Close() })
	return db
}

// pt makes a cipher point.
func pt(mode, alg string, size, repeat int, bps float64) protocol.Point {
	return protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt", BlockSize: size, Threads: 1, Repeat: repeat,
		Count: bps * 3 / float64(max(size, 1)), Seconds: 3, Timing: "wall", BytesPerSec: bps,
		WallS: 3, UserS: 2.9, SysS: 0.05, CPUPct: 98.3}
}

// countPoints counts stored points of a run, read through a separate query as another process would.
func countPoints(t *testing.T, db *DB, runID int64) int {
	t.Helper()
	ms, err := db.Measurements(context.Background(), Filter{RunID: runID})
	if err != nil {
		t.Fatalf("Measurements(run %d) = %v", runID, err)
	}
	return len(ms)
}

func rawOf(id int, stdout string) protocol.Raw {
	return protocol.Raw{ID: id, Command: []string{"openssl", "speed", "-elapsed", "-evp", "aes-128-cbc"},
		Env: []string{"OPENSSL_armcap=0"}, Stdout: stdout, Stderr: "", Exit: 0}
}
