package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// dsnQueryOnlyParams open a database for reading while other processes may still write it: mode=ro makes
// SQLite refuse any write on this handle, query_only refuses them again at the SQL level, and without
// immutable the reader sees the commits of a run still in progress (WAL).
const dsnQueryOnlyParams = "mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(1)"

// ErrOlderSchema means the database lacks migrations this fleet has; a read-only handle cannot apply them.
var ErrOlderSchema = errors.New("written by an older fleet")

// OpenReadOnly opens an existing database for queries only, as a long-running reader such as `fleet serve`
// needs: it never creates the file, never migrates it, and no write can go through the handle (SQLite opens
// the file read-only). A database from a newer fleet wraps ErrNewerSchema, one that needs migrating wraps
// ErrOlderSchema (any writing fleet command migrates it), a missing file wraps ErrCannotOpen.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if IsPostgres(path) {
		// Every transaction of the session is read-only (default_transaction_read_only): PostgreSQL refuses a
		// write through this handle as SQLite's mode=ro does.
		db, err := openPostgres(ctx, path, true)
		if err != nil {
			return nil, err
		}
		err = db.checkSchemaReadOnly(ctx)
		if err == nil {
			err = db.checkReadable(ctx)
		}
		if err != nil {
			err = db.explainPermission(ctx, err, accessRead)
			db.db.Close()
			return nil, Scrub(fmt.Errorf("open database %s read-only: %w", db.Path, err), path)
		}
		return db, nil
	}
	if path == "" {
		return nil, fmt.Errorf("open database read-only: %w: empty path", ErrCannotOpen)
	}
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open database %s read-only: %w: %w", path, ErrCannotOpen, err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("open database %s read-only: %w", path, checkSQLitePath(path))
	}
	params := dsnQueryOnlyParams
	if readOnlyFile(path) {
		// No -shm file can be created beside it and nobody can write it: immutable is exact (see Open).
		params = dsnReadOnlyParams + "&_pragma=query_only(1)"
	}
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path), RawQuery: params}
	sdb, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open database %s read-only: %w", path, classify(err))
	}
	db := &DB{Path: path, Now: nil, db: &conn{DB: sdb}}
	if err := db.checkSchemaReadOnly(ctx); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open database %s read-only: %w", path, err)
	}
	return db, nil
}

// checkSchemaReadOnly compares the applied migrations with this fleet's, without creating anything.
func (db *DB) checkSchemaReadOnly(ctx context.Context) error {
	ms, err := migrations(db.db.dialect)
	if err != nil {
		return err
	}
	tables, err := db.tables(ctx)
	if err != nil {
		if db.db.dialect == dialectSQLite {
			err = openError(db.Path, err)
		}
		return fmt.Errorf("read schema: %w", err)
	}
	if err := db.checkFleetSchema(ctx, tables); err != nil {
		return err
	}
	if !tables.has("schema_migrations") {
		return fmt.Errorf("%w: not a fleet database (no schema_migrations table)", ErrCannotOpen)
	}
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	if err := checkKnown(applied, ms); err != nil {
		return err
	}
	for _, m := range ms {
		if !applied[m.version] {
			return fmt.Errorf("%w (migration %s not applied); any writing fleet command (fleet run, fleet import) upgrades it",
				ErrOlderSchema, m.name)
		}
	}
	return nil
}
