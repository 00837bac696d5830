package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// migrationFS holds the DDL of each dialect: migrations/sqlite/NNNN_what.sql and migrations/postgres/NNNN_what.sql,
// the same numbers and names in both, one history (schema_migrations) per database.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// The migrator is our own rather than golang-migrate or goose: those bring a driver layer of their own (and,
// for golang-migrate, a separate modernc driver), lock in their own way, and would not keep what this file
// guarantees and migrate_test.go tests on both dialects: one transaction per file, the version re-checked
// inside it (SQLite BEGIN IMMEDIATE, a PostgreSQL advisory lock), a newer schema refused, another
// application's tables never migrated. It is about 200 lines over embed.FS.

// migration is one numbered .sql file.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migrations of dialect d in order. A file is named NNNN_what.sql.
func migrations(d dialect) ([]migration, error) {
	dir := "migrations/" + d.String() + "/"
	names, err := fs.Glob(migrationFS, dir+"*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var ms []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, dir)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and _", base)
		}
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", base, err)
		}
		ms = append(ms, migration{version: v, name: base, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a number", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// migrate applies every migration not yet recorded in schema_migrations, each in its own transaction, and
// returns the names of those it applied (without .sql), oldest first. Two processes opening a new database at
// once are safe: the version is checked again inside the transaction, which excludes other writers (SQLite:
// BEGIN IMMEDIATE; PostgreSQL: an advisory lock).
// A database with tables but no fleet history is another application's: it is refused, never migrated.
func (db *DB) migrate(ctx context.Context) ([]string, error) {
	ms, err := migrations(db.db.dialect)
	if err != nil {
		return nil, err
	}
	tables, err := db.tables(ctx)
	if err != nil {
		return nil, db.explainPermission(ctx, err, accessRead)
	}
	if err := db.checkFleetSchema(ctx, tables); err != nil {
		return nil, db.explainPermission(ctx, err, accessRead)
	}
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return nil, db.explainPermission(ctx, err, accessRead)
	}
	if err := checkKnown(applied, ms); err != nil {
		return nil, err
	}
	var names []string
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		done, err := db.applyMigration(ctx, m)
		if err != nil {
			return names, db.explainPermission(ctx, err, accessWrite)
		}
		if done {
			names = append(names, strings.TrimSuffix(m.name, ".sql"))
		}
	}
	return names, nil
}

// Migrated names the migrations Open applied to the database, oldest first, such as 0004_run_uuid; none when
// it was up to date (or another process applied them first).
func (db *DB) Migrated() []string { return db.migrated }

// SchemaVersion is the number of the newest migration applied to the database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) { return db.schemaVersion(ctx) }

// checkKnown refuses a database that records a migration this fleet does not have: a newer fleet wrote it, and
// writing to it (or reading it) with the old schema's assumptions could corrupt or misread its data.
func checkKnown(applied map[int]bool, ms []migration) error {
	known := map[int]bool{}
	newest := 0
	for _, m := range ms {
		known[m.version] = true
		newest = max(newest, m.version)
	}
	highest, unknown, found := 0, 0, false
	for v := range applied {
		highest = max(highest, v)
		if !known[v] && (!found || v < unknown) {
			unknown, found = v, true
		}
	}
	switch {
	case highest > newest:
		return fmt.Errorf("%w (schema %d > %d); upgrade fleet", ErrNewerSchema, highest, newest)
	case found:
		return fmt.Errorf("%w (schema migration %d is unknown to this fleet, which knows 1 to %d); upgrade fleet",
			ErrNewerSchema, unknown, newest)
	}
	return nil
}

// appliedMigrations reads schema_migrations, creating it when the database is new.
func (db *DB) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	has, err := db.hasTable(ctx, "schema_migrations")
	if err != nil {
		return nil, err
	}
	if !has {
		if err := db.createMigrationTable(ctx); err != nil {
			return nil, err
		}
	}
	rows, err := db.db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", classify(err))
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", classify(err))
	}
	return applied, nil
}

// applyMigration runs one migration and records it, atomically. It reports false when another process had
// applied it first.
func (db *DB) applyMigration(ctx context.Context, m migration) (applied bool, err error) {
	tx, err := db.beginMigration(ctx)
	if err != nil {
		return false, fmt.Errorf("migration %s: %w", m.name, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).
		Scan(&done); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.name, classify(err))
	}
	if done > 0 {
		return false, tx.Rollback()
	}
	if _, err := tx.Tx.ExecContext(ctx, m.sql); err != nil { // DDL as written: no placeholders to rebind
		return false, fmt.Errorf("migration %s: %w", m.name, classify(err))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)`,
		m.version, m.name, formatTime(db.now())); err != nil {
		return false, fmt.Errorf("migration %s: record: %w", m.name, classify(err))
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migration %s: commit: %w", m.name, classify(err))
	}
	return true, nil
}

// schemaVersion is the highest applied migration, for tests and diagnostics.
func (db *DB) schemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := db.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", classify(err))
	}
	return int(v.Int64), nil
}
