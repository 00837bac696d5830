package store

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func TestOpenMigrates(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		path := b.newDSN(t)
		ms, err := migrations(map[string]dialect{"sqlite": dialectSQLite, "postgres": dialectPostgres}[b.name])
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 { // the second open finds everything applied
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			v, err := db.schemaVersion(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := ms[len(ms)-1].version; v != want {
				t.Errorf("open %d: schema version %d, want %d", i, v, want)
			}
			var n int
			if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != len(ms) {
				t.Errorf("open %d: %d migrations recorded, want %d", i, n, len(ms))
			}
			if b.name == "sqlite" {
				var mode string
				if err := db.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
					t.Errorf("journal_mode = %q, %v; want wal", mode, err)
				}
			}
			db.Close()
		}
	})
}

// TestOpenErrors: file names that cannot be a database. SQLite only; PostgreSQL's are the TestOpenPostgres*.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		is   error // nil: any error
	}{
		{"empty path", "", ErrCannotOpen},
		{"missing directory", filepath.Join(dir, "nope", "fleet.db"), ErrCannotOpen},
		{"not a database", notDB, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(context.Background(), tt.path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded", tt.path)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Open(%q) = %v, want %v", tt.path, err, tt.is)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "open database") || !strings.Contains(msg, tt.path) {
				t.Errorf("Open(%q) = %q, want it to name the file", tt.path, err)
			}
		})
	}
}

// mountTmpfs mounts a small tmpfs on a new directory, which lets root tests see what users see on a read-only
// or full file system (root ignores permission bits, not a read-only mount or a full disk).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("mount tmpfs: %v (needs root)", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// seed writes one finished run with one point.
func seed(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, RunInfo{Label: "seed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1e6)); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnly: read-only files, directories and file systems. SQLite only: PostgreSQL's read-only session is
// TestOpenReadOnlyNeverWrites.
func TestReadOnly(t *testing.T) {
	tests := []struct {
		name      string
		makeRO    func(t *testing.T) string // returns the database path, made read-only
		needsRoot bool
	}{
		{"read-only file system", func(t *testing.T) string {
			dir := mountTmpfs(t, "4m")
			path := filepath.Join(dir, "fleet.db")
			seed(t, path)
			if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
				t.Fatalf("remount read-only: %v", err)
			}
			t.Cleanup(func() { syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "") })
			return path
		}, true},
		{"immutable file", func(t *testing.T) string {
			chattr, err := exec.LookPath("chattr")
			if err != nil {
				t.Skip("no chattr")
			}
			path := filepath.Join(t.TempDir(), "fleet.db")
			seed(t, path)
			if out, err := exec.Command(chattr, "+i", path).CombinedOutput(); err != nil {
				t.Skipf("chattr +i: %v: %s", err, out)
			}
			t.Cleanup(func() { exec.Command(chattr, "-i", path).Run() })
			return path
		}, true},
		{"permissions", func(t *testing.T) string {
			dir := t.TempDir()
			path := filepath.Join(dir, "fleet.db")
			seed(t, path)
			os.Chmod(path, 0o444)
			os.Chmod(dir, 0o555)
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			return path
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if root := os.Geteuid() == 0; root != tt.needsRoot {
				t.Skipf("root %v: this case needs root %v", root, tt.needsRoot)
			}
			path := tt.makeRO(t)
			ctx := context.Background()
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open(read-only, up to date) = %v; want it open for queries", err)
			}
			defer db.Close()
			runs, err := db.Runs(ctx, RunFilter{})
			if err != nil || len(runs) != 1 || runs[0].Points != 1 {
				t.Errorf("Runs on a read-only database = %+v, %v; want the seeded run", runs, err)
			}
			_, err = db.BeginRun(ctx, RunInfo{})
			t.Logf("write: %v", err)
			if !errors.Is(err, ErrReadOnly) {
				t.Fatalf("writing a read-only database: %v, want ErrReadOnly", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestDiskFull: a full file system under the database file. SQLite only: a PostgreSQL server's disk is its
// administrator's (its disk_full error maps to ErrFull the same way).
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	ctx := context.Background()
	path := filepath.Join(mountTmpfs(t, "1m"), "fleet.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.BatchSize = 5
	w, err := db.BeginRun(ctx, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("openssl speed output ", 2000) // 40 kB per raw output
	var werr error
	for i := 0; werr == nil && i < 1000; i++ {
		werr = w.Raw(ctx, "a", rawOf(i, big))
		if werr == nil {
			werr = w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, i, float64(i+1)))
		}
	}
	if !errors.Is(werr, ErrFull) || !strings.Contains(werr.Error(), path) {
		t.Fatalf("writing until the disk is full: %v, want ErrFull naming %s", werr, path)
	}
	t.Logf("disk full: %v", werr)
	if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1)); !errors.Is(err, ErrFull) {
		t.Errorf("Point after a failed batch = %v, want the same error again", err)
	}
	db.Close()

	db = openAt(t, path)
	var check string
	if err := db.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	n := countPoints(t, db, w.RunID())
	raws, err := db.RawOutputs(ctx, w.RunID(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n%5 != 0 || len(raws) != n {
		t.Errorf("after disk full: %d points, %d raw outputs; want whole batches of 5 with their raw outputs", n, len(raws))
	}
	t.Logf("%d points stored before the disk was full", n)
}

// TestOpenOnFullDisk: SQLite reports the -shm file it cannot grow on a full disk as "disk I/O error"; Open
// says the disk is full (ErrFull), naming the file, and leaves the database intact. SQLite only (its -shm file).
func TestOpenOnFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := mountTmpfs(t, "2m")
	path := filepath.Join(dir, "fleet.db")
	seed(t, path)
	for _, name := range []string{"fleet.db-wal", "fleet.db-shm"} {
		os.Remove(filepath.Join(dir, name)) // a cleanly closed database has none; make sure
	}
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	for chunk := make([]byte, 64<<10); err == nil; {
		_, err = fill.Write(chunk)
	}
	fill.Close()
	db, err := Open(context.Background(), path)
	if err == nil {
		db.Close()
		t.Skip("SQLite opened the database on a full disk: nothing to classify")
	}
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "full") {
		t.Errorf("Open on a full disk = %v, want ErrFull naming %s", err, path)
	}
	os.Remove(filepath.Join(dir, "fill"))
	if n := countPoints(t, openAt(t, path), 1); n != 1 {
		t.Errorf("after Open on a full disk: %d points, want the 1 seeded", n)
	}
}

func TestResultsNeverUpdated(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		errs := []error{
			w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16, 0, 1e6)),
			w.Skip(ctx, "a", protocol.Skip{Mode: "afalg", Reason: "no"}),
			w.Raw(ctx, "a", rawOf(1, "out")),
			w.Finish(ctx, protocol.StatusOK),
		}
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{
			`UPDATE measurements SET bytes_per_sec = 2e6`,
			`UPDATE skips SET reason = 'other'`,
			`UPDATE raw_outputs SET stdout = 'forged'`,
		} {
			if _, err := db.db.ExecContext(ctx, stmt); err == nil || !strings.Contains(err.Error(), "never updated") {
				t.Errorf("%s: %v, want refused", stmt, err)
			}
		}
	})
}

// A read-only database that still needs a migration cannot be opened: the error says read-only, and the
// file is left as it was. SQLite only (a read-only file).
func TestReadOnlyOutdated(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "fleet.db")
	seed(t, path)
	db := openAt(t, path)
	// make it look like a database from before migration 0002
	for _, stmt := range []string{`DROP TRIGGER measurements_never_updated`, `DROP TRIGGER skips_never_updated`,
		`DROP TRIGGER raw_outputs_never_updated`, `DELETE FROM schema_migrations WHERE version = 2`} {
		if _, err := db.db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if os.Geteuid() == 0 {
		chattr, err := exec.LookPath("chattr")
		if err != nil {
			t.Skip("no chattr")
		}
		if out, err := exec.Command(chattr, "+i", path).CombinedOutput(); err != nil {
			t.Skipf("chattr +i: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command(chattr, "-i", path).Run() })
	} else {
		os.Chmod(path, 0o444)
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	}
	if db, err := Open(ctx, path); !errors.Is(err, ErrReadOnly) {
		if err == nil {
			db.Close()
		}
		t.Fatalf("Open(read-only, outdated) = %v, want ErrReadOnly", err)
	}
}
