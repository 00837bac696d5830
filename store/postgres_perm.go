package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

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

// checkReadable refuses a PostgreSQL role that may not read every table and view of fleet's schema (those
// owned by schema_migrations' owner, who created them: a lab's own tables beside them are not fleet's), naming
// them and the grant: a role granted SELECT on only some tables would otherwise pass the schema check and
// then fail each command on its own table with the server's bare "permission denied for table board_runs".
func (db *DB) checkReadable(ctx context.Context) error {
	if db.db.dialect != dialectPostgres {
		return nil
	}
	rows, err := db.db.QueryContext(ctx, `SELECT c.relname FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'm', 'p')
			AND c.relowner = (SELECT relowner FROM pg_catalog.pg_class WHERE oid = to_regclass('schema_migrations'))
			AND NOT has_table_privilege(c.oid, 'SELECT')
		ORDER BY c.relname`)
	if err != nil {
		return db.explainPermission(ctx, classify(err), accessRead)
	}
	defer rows.Close()
	var denied []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return classify(err)
		}
		denied = append(denied, name)
	}
	if err := rows.Err(); err != nil {
		return classify(err)
	}
	if len(denied) == 0 {
		return nil
	}
	schema := db.schemaName(ctx)
	asOwner := "use the owner's role"
	if owner := db.ownerOf(ctx, "table", denied[0], schema); owner != "" {
		asOwner = fmt.Sprintf("use the owner's role, %q", owner)
	}
	noun := "table"
	if len(denied) > 1 {
		noun = "tables"
	}
	list := strings.Join(denied, ", ")
	return &permissionError{
		msg: fmt.Sprintf("role %q may not read %s %s: grant it SELECT on fleet's tables (GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s), or %s",
			db.role, noun, list, pgx.Identifier{schema}.Sanitize(), pgx.Identifier{db.role}.Sanitize(), asOwner),
		err: fmt.Errorf("no SELECT privilege on %s", list),
	}
}
