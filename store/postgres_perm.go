package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL's "permission denied" (SQLSTATE 42501) is a role's missing privilege, not a fault of the data:
// the message says which role may not do what, and what to grant, instead of the server's one line ("create
// schema_migrations: permission denied for schema public"). The database is named by the caller, in its
// redacted form (DB.Path). The error still wraps ErrReadOnly (exit 2) and the server's error.

// access is what the statement that was refused meant to do to a table.
type access int

const (
	accessRead  access = iota // SELECT
	accessWrite               // INSERT, UPDATE, DELETE
)

// permissionError is a refused privilege, explained.
type permissionError struct {
	msg string
	err error
}

func (e *permissionError) Error() string   { return e.msg }
func (e *permissionError) Unwrap() []error { return []error{ErrReadOnly, e.err} }

// deniedRE reads the object of PostgreSQL's "permission denied for table runs" and "must be owner of table runs".
var deniedRE = regexp.MustCompile(`^(permission denied for|must be owner of) (schema|table|relation|sequence|view) "?([^"\s]+)"?`)

// explainPermission returns err explained when PostgreSQL refused the role a privilege, err itself otherwise.
// doing is what the refused statement meant to do to a table (a schema's refusal is always CREATE).
func (db *DB) explainPermission(ctx context.Context, err error, doing access) error {
	var pe *pgconn.PgError
	var done *permissionError
	if db.db.dialect != dialectPostgres || !errors.As(err, &pe) || pe.Code != "42501" || errors.As(err, &done) {
		return err
	}
	m := deniedRE.FindStringSubmatch(pe.Message)
	if m == nil {
		return err
	}
	verb, kind, object := m[1], m[2], m[3]
	role, schema := db.role, db.schemaName(ctx)
	grantee := pgx.Identifier{role}.Sanitize()
	owner := db.ownerOf(ctx, kind, object, schema)
	asOwner := "use the owner's role"
	if owner != "" {
		asOwner = fmt.Sprintf("use the owner's role, %q", owner)
	}
	var msg string
	switch {
	case verb == "must be owner of":
		msg = fmt.Sprintf("role %q may not change %s %s: only its owner may (%s); run fleet db migrate as the owner", role, kind, object, pe.Message)
		if owner != "" {
			msg = fmt.Sprintf("role %q may not change %s %s: only its owner, %q, may (%s); run fleet db migrate as %q", role, kind, object, owner, pe.Message, owner)
		}
	case kind == "schema":
		msg = fmt.Sprintf("role %q may not create tables in schema %s (%s): grant it CREATE (as the schema's owner: GRANT CREATE ON SCHEMA %s TO %s), or run fleet db migrate as the owner",
			role, object, pe.Message, pgx.Identifier{object}.Sanitize(), grantee)
		if owner != "" {
			msg += fmt.Sprintf(", %q", owner)
		}
	case kind == "sequence" || doing == accessWrite:
		msg = fmt.Sprintf("role %q may not write %s %s (%s): grant it INSERT, UPDATE and DELETE on fleet's tables and USAGE on their sequences "+
			"(GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %s TO %s; GRANT USAGE ON ALL SEQUENCES IN SCHEMA %s TO %s), or %s",
			role, kind, object, pe.Message, pgx.Identifier{schema}.Sanitize(), grantee, pgx.Identifier{schema}.Sanitize(), grantee, asOwner)
	default:
		msg = fmt.Sprintf("role %q may not read %s %s (%s): grant it SELECT on fleet's tables (GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s), or %s",
			role, kind, object, pe.Message, pgx.Identifier{schema}.Sanitize(), grantee, asOwner)
	}
	return &permissionError{msg: msg, err: err}
}

// schemaName is the schema fleet's tables are in (the session's current schema), public when it cannot be read.
func (db *DB) schemaName(ctx context.Context) string {
	var s *string
	if err := db.db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&s); err != nil || s == nil || *s == "" {
		return "public"
	}
	return *s
}

// ownerOf names the role owning a schema or a table (of schema); "" when it cannot be read.
func (db *DB) ownerOf(ctx context.Context, kind, object, schema string) string {
	var owner string
	var err error
	if kind == "schema" {
		err = db.db.QueryRowContext(ctx, `SELECT pg_get_userbyid(nspowner) FROM pg_catalog.pg_namespace WHERE nspname = ?`, object).Scan(&owner)
	} else {
		err = db.db.QueryRowContext(ctx, `SELECT pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?`, schema, object).Scan(&owner)
	}
	if err == nil && owner == "pg_database_owner" { // PostgreSQL 15's public schema: whoever owns the database
		err = db.db.QueryRowContext(ctx, `SELECT pg_get_userbyid(datdba) FROM pg_catalog.pg_database WHERE datname = current_database()`).Scan(&owner)
	}
	if err != nil {
		return ""
	}
	return owner
}
