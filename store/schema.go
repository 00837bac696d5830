package store

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// tableSet is the set of tables of a database (PostgreSQL: of its current schema, the first of search_path).
type tableSet map[string]bool

func (s tableSet) has(name string) bool { return s[name] }

// tables lists the database's tables, to tell a new database, a fleet database and another application's apart.
func (db *DB) tables(ctx context.Context) (tableSet, error) {
	query := `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	if db.db.dialect == dialectPostgres {
		// pg_catalog, not information_schema: information_schema shows a role only the tables it has a
		// privilege on, so to a role without SELECT fleet's database would look empty (and Open would try
		// to create it) where it is the role that lacks a grant.
		query = `SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`
	}
	rows, err := db.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", classify(err))
	}
	defer rows.Close()
	set := tableSet{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read schema: %w", err)
		}
		set[name] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read schema: %w", classify(err))
	}
	return set, nil
}

// hasTable reports whether the database has the table name.
func (db *DB) hasTable(ctx context.Context, name string) (bool, error) {
	tables, err := db.tables(ctx)
	if err != nil {
		return false, err
	}
	return tables.has(name), nil
}

// columns lists the columns of table, sorted.
func (db *DB) columns(ctx context.Context, table string) ([]string, error) {
	query := `SELECT name FROM pragma_table_info(?)`
	if db.db.dialect == dialectPostgres {
		query = `SELECT a.attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = current_schema() AND c.relname = ? AND a.attnum > 0 AND NOT a.attisdropped`
	}
	rows, err := db.db.QueryContext(ctx, query, table)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", table, classify(err))
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read columns of %s: %w", table, err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", table, classify(err))
	}
	sort.Strings(cols)
	return cols, nil
}

// migrationColumns are schema_migrations' columns, sorted: a table of that name with others is not fleet's.
var migrationColumns = []string{"applied", "name", "version"}

// checkFleetSchema refuses a database that belongs to another application: tables but no schema_migrations,
// or a schema_migrations that is not fleet's (another migration tool's). Migrating it would add fleet's tables
// beside (or fail half-way into) someone else's data. An empty database is fleet's to create.
func (db *DB) checkFleetSchema(ctx context.Context, tables tableSet) error {
	if !tables.has("schema_migrations") {
		if len(tables) == 0 {
			return nil
		}
		names := make([]string, 0, len(tables))
		for name := range tables {
			names = append(names, name)
		}
		sort.Strings(names)
		if len(names) > 5 {
			names = append(names[:5], "...")
		}
		return &kindError{ErrCannotOpen, fmt.Errorf(
			"not a fleet database: it has tables (%s) but no schema_migrations; fleet will not add its tables to "+
				"another application's database (use an empty database or a new file)", strings.Join(names, ", "))}
	}
	cols, err := db.columns(ctx, "schema_migrations")
	if err != nil {
		return err
	}
	if !slices.Equal(cols, migrationColumns) {
		return &kindError{ErrCannotOpen, fmt.Errorf(
			"not a fleet database: its schema_migrations has columns (%s), fleet's has (%s); another tool's "+
				"migrations are not fleet's", strings.Join(cols, ", "), strings.Join(migrationColumns, ", "))}
	}
	return nil
}

// migrationLock is the key of the PostgreSQL advisory lock that serializes migrations of one database across
// processes ("fleet" in ASCII), as BEGIN IMMEDIATE does for SQLite.
const migrationLock = 0x666c656574

// beginMigration starts a transaction that excludes other migrating processes until it ends.
func (db *DB) beginMigration(ctx context.Context) (*sqlTx, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", classify(err))
	}
	if db.db.dialect == dialectPostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrationLock)); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("lock for migration: %w", classify(err))
		}
	}
	return tx, nil
}

// createMigrationTable creates schema_migrations in a new database.
func (db *DB) createMigrationTable(ctx context.Context) (err error) {
	integer := "INTEGER"
	if db.db.dialect == dialectPostgres {
		integer = "BIGINT"
	}
	tx, err := db.beginMigration(ctx)
	if err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version `+integer+` PRIMARY KEY,
			name    TEXT NOT NULL,
			applied TEXT NOT NULL
		)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", classify(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create schema_migrations: commit: %w", classify(err))
	}
	return nil
}
