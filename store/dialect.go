package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// dialect is the SQL flavour of a database. The DML of this package is written once, in the subset both
// SQLite and PostgreSQL accept, with SQLite's `?` and `?N` placeholders; conn rewrites those for PostgreSQL in
// one place. The DDL differs and lives in migrations/<dialect>/.
type dialect int

const (
	dialectSQLite dialect = iota
	dialectPostgres
)

func (d dialect) String() string {
	if d == dialectPostgres {
		return "postgres"
	}
	return "sqlite"
}

// conn is the database/sql handle of a DB with its dialect: every query of the package goes through its
// methods, which leave SQLite's queries as they are (no cost on the default backend) and rebind PostgreSQL's.
type conn struct {
	*sql.DB
	dialect dialect
	rebound sync.Map // PostgreSQL: query as written → query as sent
	noCopy  bool     // PostgreSQL: store points with INSERT, not COPY (tests compare the two)
}

// ExecContext runs query with args, rebound for the dialect.
func (c *conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.DB.ExecContext(ctx, c.rebind(query), c.args(args)...)
}

// QueryContext runs query with args, rebound for the dialect.
func (c *conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.DB.QueryContext(ctx, c.rebind(query), c.args(args)...)
}

// QueryRowContext runs query with args, rebound for the dialect.
func (c *conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.DB.QueryRowContext(ctx, c.rebind(query), c.args(args)...)
}

// PrepareContext prepares query rebound for the dialect; its arguments still go through args.
func (c *conn) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return c.DB.PrepareContext(ctx, c.rebind(query))
}

// BeginTx starts a transaction whose statements are rebound like conn's.
func (c *conn) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sqlTx, error) {
	if c.dialect == dialectPostgres {
		return c.beginPostgres(ctx, opts)
	}
	t, err := c.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &sqlTx{Tx: t, c: c}, nil
}

// sqlTx is a transaction of a conn.
type sqlTx struct {
	*sql.Tx
	c  *conn
	sc *sql.Conn // PostgreSQL: the connection the transaction holds (pgcopy.go)
}

// ExecContext runs query with args in the transaction, rebound for the dialect.
func (t *sqlTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, t.c.rebind(query), t.c.args(args)...)
}

// QueryContext runs query with args in the transaction, rebound for the dialect.
func (t *sqlTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.Tx.QueryContext(ctx, t.c.rebind(query), t.c.args(args)...)
}

// QueryRowContext runs query with args in the transaction, rebound for the dialect.
func (t *sqlTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, t.c.rebind(query), t.c.args(args)...)
}

// rebind returns query for the dialect: PostgreSQL's placeholders are $N, and SQLite's ?N (same argument
// each time it appears) and ? (the next argument) map onto them. SQLite's "CROSS JOIN … ON", its way of fixing
// the join order (its planner never reorders a CROSS JOIN), is a plain JOIN to PostgreSQL, which plans itself.
// The rewritten text is remembered: the package's queries are a few hundred fixed strings.
func (c *conn) rebind(query string) string {
	if c.dialect != dialectPostgres {
		return query
	}
	if q, ok := c.rebound.Load(query); ok {
		return q.(string)
	}
	q := strings.ReplaceAll(rebindDollar(query), "CROSS JOIN", "JOIN")
	c.rebound.Store(query, q)
	return q
}

// rebindDollar rewrites ? and ?N placeholders outside of quoted strings and identifiers to $N. A bare ?
// takes the number after the highest used so far, as SQLite numbers them.
func rebindDollar(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	highest := 0
	var quote byte // ' or " while inside a quoted string or identifier
	for i := 0; i < len(query); i++ {
		ch := query[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
			b.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote = ch
			b.WriteByte(ch)
		case ch == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			n := highest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(query[i+1 : j]) // digits only: cannot fail short of overflow
			}
			highest = max(highest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// args converts arguments for the dialect. SQLite stores a Go bool as the integer 1 or 0, and the schema keeps
// integers for flags (measurements.failed) so that both databases hold the same values; PostgreSQL will not
// take a bool for an integer parameter, so it gets the integer. PostgreSQL's text also refuses what SQLite
// keeps as it came: bytes that are not UTF-8 (a capture pasted from a Latin-1 log) and NUL; they are stored as
// U+FFFD, which is how a terminal or the dashboard would show them anyway, rather than failing the whole batch.
func (c *conn) args(args []any) []any {
	if c.dialect != dialectPostgres {
		return args
	}
	var out []any
	set := func(i int, v any) {
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = v
	}
	for i, a := range args {
		switch v := a.(type) {
		case bool:
			n := int64(0)
			if v {
				n = 1
			}
			set(i, n)
		case string:
			if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
				set(i, strings.ReplaceAll(strings.ToValidUTF8(v, "\uFFFD"), "\x00", "\uFFFD"))
			}
		}
	}
	if out == nil {
		return args
	}
	return out
}

// insertionOrder is the ORDER BY that returns the points of a series in one run in the order they were stored,
// as a query walking measurements_run_series does in SQLite (the index ends in the rowid) at no cost. PostgreSQL
// promises no order without ORDER BY; sorting there would cost SQLite a temporary B-tree, so only it gets one.
func (db *DB) insertionOrder(alias string) string {
	if db.db.dialect == dialectPostgres {
		return " ORDER BY " + alias + ".id"
	}
	return ""
}
