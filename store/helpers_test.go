package store

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/pgtest"
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

// backend is a kind of database the store's tests run against: the same test, the same expectations.
type backend struct {
	name   string
	newDSN func(t testing.TB) string // a new, empty database for t
}

// backends are SQLite (a file in t.TempDir) and PostgreSQL (a fresh database on the test binary's server,
// internal/pgtest; skipped when PostgreSQL is not installed, unless FLEET_REQUIRE_POSTGRES is set).
var backends = []backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "fleet.db") }},
	{"postgres", func(t testing.TB) string { return pgtest.NewDatabase(t) }},
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// forEachBackend runs f as a subtest per backend.
func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// open opens a new database of the backend with a deterministic clock.
func (b backend) open(t *testing.T) *DB {
	t.Helper()
	return openAt(t, b.newDSN(t))
}

// openTest opens a new SQLite database in t.TempDir with a deterministic clock, for tests about the file.
func openTest(t *testing.T) *DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "fleet.db"))
}

// openAt opens the database dsn (a file or a PostgreSQL URL) with a deterministic clock.
func openAt(t *testing.T, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open(%s) = %v", Redact(dsn), err)
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
