package store

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// v4RE is a random (version 4, variant 10) UUID in canonical lower-case form.
var v4RE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestRunUUIDsAreRandomAndUnique: every run, begun or imported, gets its own version 4 UUID; one given in
// RunInfo is kept (lower-cased); the database refuses a second run with a UUID already there.
func TestRunUUIDsAreRandomAndUnique(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) { testRunUUIDs(t, b.open(t)) })
}

func testRunUUIDs(t *testing.T, db *DB) {
	ctx := context.Background()
	for range 20 {
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.BeginImport(ctx, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	for _, board := range []string{"a", "b"} {
		if err := tx.StartRun(ctx, board, "imported from x.txt"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.EndRun(ctx, protocol.StatusOK, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	given := "0A1B2C3D-0000-4000-8000-00000000002A"
	w, err := db.BeginRun(ctx, RunInfo{UUID: given})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.UUID(), strings.ToLower(given); got != want {
		t.Errorf("BeginRun(UUID %s).UUID() = %s, want %s", given, got, want)
	}

	runs, err := db.Runs(ctx, RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(runs), 23; got != want {
		t.Fatalf("%d runs, want %d", got, want)
	}
	seen := map[string]int64{}
	for _, r := range runs {
		if r.ID == w.RunID() {
			if r.UUID != strings.ToLower(given) {
				t.Errorf("run %d has UUID %q, want the one given, %s", r.ID, r.UUID, strings.ToLower(given))
			}
		} else if !v4RE.MatchString(r.UUID) {
			t.Errorf("run %d has UUID %q, want a random version 4 UUID", r.ID, r.UUID)
		}
		if other, dup := seen[r.UUID]; dup {
			t.Errorf("runs %d and %d share UUID %s", other, r.ID, r.UUID)
		}
		seen[r.UUID] = r.ID
	}

	if _, err := db.BeginRun(ctx, RunInfo{UUID: strings.ToLower(given)}); err == nil {
		t.Error("BeginRun with a UUID already in the database succeeded; want the unique index to refuse it")
	}
	if _, err := db.BeginRun(ctx, RunInfo{UUID: "not-a-uuid"}); err == nil || !strings.Contains(err.Error(), "not a UUID") {
		t.Errorf("BeginRun(UUID not-a-uuid) = %v, want it refused as not a UUID", err)
	}
}

// TestMigrationBackfillsRunUUIDs: runs stored before migration 0004 each get a distinct random version 4 UUID
// when a fleet that has it opens the database, and the unique index guards them from then on.
func TestMigrationBackfillsRunUUIDs(t *testing.T) {
	forEachBackend(t, testMigrationBackfillsRunUUIDs)
}

func testMigrationBackfillsRunUUIDs(t *testing.T, b backend) {
	ctx := context.Background()
	dsn := b.newDSN(t)
	old := openAtSchema(t, dsn, 3)
	clock := newClock()
	for range 50 {
		if _, err := old.db.ExecContext(ctx, `INSERT INTO runs (started, label, status) VALUES (?, 'old', 'ok')`,
			formatTime(clock.now())); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	db := openAt(t, dsn)
	if got := db.Migrated(); len(got) == 0 || got[0] != "0004_run_uuid" {
		t.Errorf("Open of a schema 3 database applied %q, want 0004_run_uuid first", got)
	}
	runs, err := db.Runs(ctx, RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 50 {
		t.Fatalf("%d runs after migrating, want 50", len(runs))
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if !v4RE.MatchString(r.UUID) {
			t.Errorf("run %d backfilled with %q, want a random version 4 UUID", r.ID, r.UUID)
		}
		if seen[r.UUID] {
			t.Errorf("backfilled UUID %s given to two runs", r.UUID)
		}
		seen[r.UUID] = true
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO runs (uuid, started, status) VALUES (?, 'x', 'ok')`,
		runs[0].UUID); err == nil {
		t.Error("inserting a run with a backfilled run's UUID succeeded; want the unique index to refuse it")
	}
}

// TestResolveRunByUUID: fleet show accepts the UUID it prints, in either case; an unknown UUID is not found
// (rather than read as a label), and no label can be spelled like a UUID.
func TestResolveRunByUUID(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) { testResolveRunByUUID(t, b.open(t)) })
}

func testResolveRunByUUID(t *testing.T, db *DB) {
	ctx := context.Background()
	var ids []int64
	for _, u := range []string{"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"} {
		w, err := db.BeginRun(ctx, RunInfo{UUID: u})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.RunID())
	}
	for ref, want := range map[string]int64{
		"11111111-1111-4111-8111-111111111111": ids[0],
		"22222222-2222-4222-8222-222222222222": ids[1],
	} {
		if got, err := db.ResolveRun(ctx, strings.ToUpper(ref)); err != nil || got != want {
			t.Errorf("ResolveRun(%s) = %d, %v; want run %d", strings.ToUpper(ref), got, err, want)
		}
	}
	if _, err := db.ResolveRun(ctx, "33333333-3333-4333-8333-333333333333"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ResolveRun(unknown UUID) = %v, want ErrNotFound", err)
	}
	if err := CheckLabel("11111111-1111-4111-8111-111111111111"); err == nil {
		t.Error("CheckLabel accepted a label spelled like a UUID")
	}
}

// openAtSchema creates the database dsn (a new file or an empty PostgreSQL database) with the migrations up to
// version only, as an older fleet left it, and those of also (columns today's writer fills).
func openAtSchema(t *testing.T, dsn string, version int, also ...int) *DB {
	t.Helper()
	ctx := context.Background()
	var db *DB
	if IsPostgres(dsn) {
		var err error
		if db, err = openPostgres(ctx, dsn, false); err != nil {
			t.Fatal(err)
		}
	} else {
		sdb, err := sql.Open("sqlite", "file:"+dsn+"?"+dsnParams)
		if err != nil {
			t.Fatal(err)
		}
		db = &DB{Path: dsn, db: &conn{DB: sdb}}
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.appliedMigrations(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := migrations(db.db.dialect)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version > version && !slices.Contains(also, m.version) {
			continue
		}
		if _, err := db.applyMigration(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	return db
}
