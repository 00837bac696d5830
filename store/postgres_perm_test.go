package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/protocol"
)

// restrictedRole creates a login role on the shared server that may connect to a fresh database but not create
// tables in its schema public, and returns the owner's URL, the role's URL (with a password) and its name.
func restrictedRole(t *testing.T) (ownerDSN, roleDSN, role string) {
	t.Helper()
	ctx := context.Background()
	ownerDSN = pgtest.NewDatabase(t)
	srv := pgtest.Shared(t)
	name := ownerDSN[strings.LastIndex(ownerDSN, "/")+1 : strings.Index(ownerDSN, "?")]
	role = "ro_" + name
	if err := srv.Exec(ctx, name, `CREATE ROLE `+role+` LOGIN PASSWORD 'Sekrit-42'; REVOKE CREATE ON SCHEMA public FROM PUBLIC`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Exec(context.Background(), name, `DROP OWNED BY `+role+`; DROP ROLE `+role) })
	return ownerDSN, strings.Replace(ownerDSN, pgtest.User+":"+pgtest.Password, role+":Sekrit-42", 1), role
}

// wantPermission checks err is the explained refusal: exit-2 kind, the database redacted, the role and what to
// grant named, no password, no bare SQL error first.
func wantPermission(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	msg := err.Error()
	t.Logf("%s: %s", what, msg)
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("%s: %v does not wrap ErrReadOnly", what, err)
	}
	if strings.Contains(msg, "Sekrit-42") || strings.Contains(msg, pgtest.Password) {
		t.Errorf("%s: the message shows a password: %s", what, msg)
	}
	if strings.Contains(msg, "database is read-only") {
		t.Errorf("%s: says read-only where a role lacks a grant: %s", what, msg)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: message lacks %q:\n%s", what, w, msg)
		}
	}
}

// TestPermissionDeniedExplained: a PostgreSQL role without the privileges fleet needs gets a message naming
// the role, the database (its password hidden), what it may not do and what to grant, not "create
// schema_migrations: permission denied": without CREATE on a new database, without SELECT on a migrated one
// (read-only too, which used to call it "not a fleet database"), and without INSERT when a run begins.
func TestPermissionDeniedExplained(t *testing.T) {
	ctx := context.Background()
	owner, dsn, role := restrictedRole(t)
	shown := "postgres://" + role + ":***@"

	_, err := Open(ctx, dsn)
	wantPermission(t, "new database", err, "open database "+shown, `role "`+role+`" may not create tables in schema public`,
		"grant it CREATE", `GRANT CREATE ON SCHEMA "public" TO "`+role+`"`, `run fleet db migrate as the owner, "`+pgtest.User+`"`)

	db, err := Open(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, dsn)
	wantPermission(t, "no SELECT", err, "open database "+shown, `role "`+role+`" may not read table schema_migrations`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA "public" TO "`+role+`"`, `use the owner's role, "`+pgtest.User+`"`)
	_, err = OpenReadOnly(ctx, dsn)
	wantPermission(t, "no SELECT, read-only", err, `role "`+role+`" may not read table schema_migrations`)

	srv := pgtest.Shared(t)
	name := owner[strings.LastIndex(owner, "/")+1 : strings.Index(owner, "?")]
	if err := srv.Exec(ctx, name, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO `+role); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, dsn)
	if err != nil {
		t.Fatalf("with SELECT: %v", err)
	}
	defer db.Close()
	_, err = db.BeginRun(ctx, RunInfo{})
	wantPermission(t, "no INSERT", err, "begin run in "+shown, `role "`+role+`" may not write table runs`,
		`GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "public" TO "`+role+`"`, "GRANT USAGE ON ALL SEQUENCES")
}

// migratedRestrictedRole is restrictedRole's database migrated by its owner, the restricted role's URL and
// name, and grant, which runs SQL (GRANTs) in that database as the server's superuser.
func migratedRestrictedRole(t *testing.T) (dsn, role string, grant func(sql string) error) {
	t.Helper()
	ctx := context.Background()
	owner, dsn, role := restrictedRole(t)
	db, err := Open(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	srv := pgtest.Shared(t)
	name := owner[strings.LastIndex(owner, "/")+1 : strings.Index(owner, "?")]
	return dsn, role, func(sql string) error { return srv.Exec(ctx, name, sql) }
}

// TestPartialSelectGrantExplained: a role that may read schema_migrations and runs but not fleet's other
// tables is refused when the database is opened, naming the tables it may not read and the grant, instead of
// every command later failing on its own table with "database is read-only: ERROR: permission denied for
// table board_runs (SQLSTATE 42501)". With SELECT but no INSERT, an import's run is refused explained too.
func TestPartialSelectGrantExplained(t *testing.T) {
	ctx := context.Background()
	dsn, role, grant := migratedRestrictedRole(t)
	if err := grant(`GRANT SELECT ON schema_migrations, runs TO ` + role); err != nil {
		t.Fatal(err)
	}
	want := []string{`role "` + role + `" may not read tables `, "board_runs", "measurements",
		`GRANT SELECT ON ALL TABLES IN SCHEMA "public" TO "` + role + `"`}
	_, err := OpenReadOnly(ctx, dsn)
	wantPermission(t, "SELECT on two tables, read-only", err, want...)
	if err != nil && strings.Contains(err.Error(), "SQLSTATE") {
		t.Errorf("the server's raw error shown: %v", err)
	}
	_, err = Open(ctx, dsn)
	wantPermission(t, "SELECT on two tables", err, want...)

	if err := grant(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ` + role); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("with SELECT on every table: %v", err)
	}
	defer db.Close()
	tx, err := db.BeginImport(ctx, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	err = tx.StartRun(ctx, "b1", "imported")
	wantPermission(t, "import without INSERT", err, `role "`+role+`" may not write table runs`, "GRANT INSERT, UPDATE, DELETE")
}

// TestRunWriteWithoutGrantExplained: a role that may begin a run (INSERT on runs) but not write the run's other
// tables gets the explained refusal when the run's first board is stored, not the server's bare "permission
// denied for table board_runs".
func TestRunWriteWithoutGrantExplained(t *testing.T) {
	ctx := context.Background()
	dsn, role, grant := migratedRestrictedRole(t)
	if err := grant(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ` + role + `;
		GRANT INSERT, UPDATE ON runs TO ` + role + `; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ` + role); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, RunInfo{})
	if err != nil {
		t.Fatalf("begin run with INSERT on runs: %v", err)
	}
	err = w.BoardStarted(ctx, "b1")
	wantPermission(t, "board without INSERT on board_runs", err, `role "`+role+`" may not write table board_runs`,
		"GRANT INSERT, UPDATE, DELETE")
}

// TestCopyAndDropWithoutGrantExplained: `fleet db copy --to` a PostgreSQL database whose role may read but not
// write fleet's tables, and the removal of a refused board's part of a run by a role that may insert but not
// delete, name the role and the grant instead of printing the server's bare "permission denied".
func TestCopyAndDropWithoutGrantExplained(t *testing.T) {
	ctx := context.Background()
	dsn, role, grant := migratedRestrictedRole(t)
	if err := grant(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ` + role); err != nil {
		t.Fatal(err)
	}
	src := openTest(t)
	seedCopySource(t, src)
	dst, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	_, err = Copy(ctx, src, dst, CopyFilter{}, nil)
	wantPermission(t, "copy without INSERT", err, `role "`+role+`" may not write table runs`, "GRANT INSERT, UPDATE, DELETE")

	if err := grant(`GRANT INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO ` + role + `; GRANT DELETE ON leases TO ` + role + `;
		GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ` + role); err != nil {
		t.Fatal(err)
	}
	w, err := dst.BeginRun(ctx, RunInfo{})
	if err != nil {
		t.Fatalf("begin run with INSERT: %v", err)
	}
	if err := w.Point(ctx, "b1", pt("cpu", "sha256", 16, 0, 1e6)); err != nil {
		t.Fatal(err)
	}
	if err := w.BoardFinished(ctx, "b1", protocol.StatusOK, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	_, err = w.DropBoards(ctx, []string{"b1"})
	wantPermission(t, "drop without DELETE", err, `role "`+role+`" may not write table measurements`, "GRANT INSERT, UPDATE, DELETE")
}
