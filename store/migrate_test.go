package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
)

func TestMigrationsAreNumbered(t *testing.T) {
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.version != i+1 {
			t.Errorf("migration %s has number %d, want %d (no gaps)", m.name, m.version, i+1)
		}
	}
}

// A failing migration leaves no trace: neither its statements nor its record.
func TestMigrationIsAtomic(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	bad := migration{version: 999, name: "0999_bad.sql", sql: `CREATE TABLE half (a); INSERT INTO nosuch VALUES (1);`}
	if err := db.applyMigration(ctx, bad); err == nil {
		t.Fatal("bad migration applied without error")
	}
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'half'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("a failed migration left its table behind")
	}
	if v, err := db.schemaVersion(ctx); err != nil || v == 999 {
		t.Errorf("schema version %d, %v after a failed migration", v, err)
	}
	good := migration{version: 999, name: "0999_good.sql", sql: `CREATE TABLE whole (a);`}
	for range 2 { // the second time finds it recorded and does nothing
		if err := db.applyMigration(ctx, good); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := db.schemaVersion(ctx); err != nil || v != 999 {
		t.Errorf("schema version %d, %v; want 999", v, err)
	}
}

// Two processes creating the same new database at once both succeed.
func TestConcurrentOpenMigrates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
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
}
