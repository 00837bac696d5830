package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestMigrationsAreNumbered(t *testing.T) {
	for _, d := range []dialect{dialectSQLite, dialectPostgres} {
		ms, err := migrations(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			if m.version != i+1 {
				t.Errorf("%s migration %s has number %d, want %d (no gaps)", d, m.name, m.version, i+1)
			}
		}
	}
}

// TestMigrationsMatchAcrossDialects: every migration exists for both databases under the same number and name,
// so that one schema version means the same tables in SQLite and PostgreSQL (and db copy can rely on it).
func TestMigrationsMatchAcrossDialects(t *testing.T) {
	names := func(d dialect) []string {
		ms, err := migrations(d)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.name)
		}
		return out
	}
	if lite, pg := names(dialectSQLite), names(dialectPostgres); !slices.Equal(lite, pg) {
		t.Errorf("migrations differ:\nsqlite   %v\npostgres %v\nwant the same numbers and names in migrations/sqlite and migrations/postgres", lite, pg)
	}
}

// A failing migration leaves no trace: neither its statements nor its record.
func TestMigrationIsAtomic(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		bad := migration{version: 999, name: "0999_bad.sql", sql: `CREATE TABLE half (a INTEGER); INSERT INTO nosuch VALUES (1);`}
		if _, err := db.applyMigration(ctx, bad); err == nil {
			t.Fatal("bad migration applied without error")
		}
		if has, err := db.hasTable(ctx, "half"); err != nil || has {
			t.Errorf("hasTable(half) = %v, %v after a failed migration; want false (no trace left)", has, err)
		}
		if v, err := db.schemaVersion(ctx); err != nil || v == 999 {
			t.Errorf("schema version %d, %v after a failed migration", v, err)
		}
		good := migration{version: 999, name: "0999_good.sql", sql: `CREATE TABLE whole (a INTEGER);`}
		for range 2 { // the second time finds it recorded and does nothing
			if _, err := db.applyMigration(ctx, good); err != nil {
				t.Fatal(err)
			}
		}
		if v, err := db.schemaVersion(ctx); err != nil || v != 999 {
			t.Errorf("schema version %d, %v; want 999", v, err)
		}
	})
}

// Two processes creating the same new database at once both succeed (SQLite: BEGIN IMMEDIATE; PostgreSQL:
// pg_advisory_xact_lock around each migration).
func TestConcurrentOpenMigrates(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		path := b.newDSN(t) // PostgreSQL: one connection each, serialized by the advisory lock
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := Open(context.Background(), path)
				if err == nil {
					db.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("open %d: %v", i, err)
			}
		}
	})
}

// TestOpenRefusesNewerSchema: a database that records a migration this fleet does not know was written by a newer
// fleet. Open refuses it with ErrNewerSchema, naming both versions, and writes nothing to it — not even a known
// migration it seems to lack — whether or not the file can be written.
func TestOpenRefusesNewerSchema(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		d := map[string]dialect{"sqlite": dialectSQLite, "postgres": dialectPostgres}[b.name]
		ms, err := migrations(d)
		if err != nil {
			t.Fatal(err)
		}
		newest := ms[len(ms)-1].version
		future := newest + 1
		dropTrigger := func(name, table string) string {
			if d == dialectPostgres {
				return "DROP TRIGGER " + name + " ON " + table
			}
			return "DROP TRIGGER " + name
		}
		tests := []struct {
			name     string
			stmts    []string
			wantMsg  string
			readOnly bool
		}{
			{"one migration ahead", []string{newerMigration(future)},
				fmt.Sprintf("written by a newer fleet (schema %d > %d); upgrade fleet", future, newest), false},
			{"ahead, with a known one missing", []string{newerMigration(future + 5),
				dropTrigger("measurements_never_updated", "measurements"), dropTrigger("skips_never_updated", "skips"),
				dropTrigger("raw_outputs_never_updated", "raw_outputs"), `DELETE FROM schema_migrations WHERE version = 2`},
				fmt.Sprintf("written by a newer fleet (schema %d > %d); upgrade fleet", future+5, newest), false},
			{"unknown number below ours", []string{`DELETE FROM schema_migrations WHERE version = 1`,
				`INSERT INTO schema_migrations (version, name, applied) VALUES (0, '0000_other.sql', 'x')`},
				"written by a newer fleet (schema migration 0 is unknown", false},
			{"ahead, read-only file", []string{newerMigration(future)},
				fmt.Sprintf("written by a newer fleet (schema %d > %d); upgrade fleet", future, newest), true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.readOnly && b.name != "sqlite" {
					t.Skip("a read-only file is SQLite's; PostgreSQL's read-only session is OpenReadOnly's test")
				}
				ctx := context.Background()
				path := b.newDSN(t)
				seed(t, path)
				db := openAt(t, path)
				for _, stmt := range tt.stmts {
					if _, err := db.db.ExecContext(ctx, stmt); err != nil {
						t.Fatalf("%s: %v", stmt, err)
					}
				}
				db.Close()
				before := schemaRows(t, path)
				if tt.readOnly {
					makeReadOnly(t, path)
				}
				got, err := Open(ctx, path)
				if err == nil {
					got.Close()
					t.Fatalf("Open(newer database) succeeded; want ErrNewerSchema")
				}
				if !errors.Is(err, ErrNewerSchema) {
					t.Errorf("Open(newer database) = %v, want ErrNewerSchema", err)
				}
				if msg := err.Error(); !strings.Contains(msg, tt.wantMsg) || !strings.Contains(msg, Redact(path)) {
					t.Errorf("Open(newer database) = %q, want it to name %s and say %q", msg, Redact(path), tt.wantMsg)
				}
				if after := schemaRows(t, path); after != before {
					t.Errorf("schema_migrations changed by a refused Open:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	})
}

// newerMigration records a migration from the future, as a newer fleet would have left it.
func newerMigration(v int) string {
	return fmt.Sprintf(`INSERT INTO schema_migrations (version, name, applied) VALUES (%d, '%04d_future.sql', 'x')`, v, v)
}

// schemaRows reads schema_migrations and the run count straight through database/sql, bypassing Open.
func schemaRows(t *testing.T, dsn string) string {
	t.Helper()
	driver, source := "sqlite", "file:"+dsn+"?mode=ro"
	if IsPostgres(dsn) {
		driver, source = "pgx", dsn
	}
	sdb, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	rows, err := sdb.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var vs []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	var runs int
	if err := sdb.QueryRow(`SELECT count(*) FROM runs`).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s runs %d", strings.Join(vs, ","), runs)
}

// makeReadOnly makes path unwritable as the kernel sees it: immutable for root (who ignores permission bits),
// mode 0444 in a 0555 directory otherwise.
func makeReadOnly(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(path, 0o444)
		os.Chmod(filepath.Dir(path), 0o555)
		t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
		return
	}
	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("no chattr to make the file immutable as root")
	}
	if out, err := exec.Command(chattr, "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command(chattr, "-i", path).Run() })
}
