package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// IsPostgres reports whether dsn names a PostgreSQL database (a postgres:// or postgresql:// URL) rather than
// an SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Redact returns dsn as it may be shown or stored: a PostgreSQL URL with its password (in the user info or a
// password parameter) replaced by ***; a file name as it is. fleet prints and records only this form.
func Redact(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		// Without a parse the password's boundaries are unknown: show the scheme only.
		scheme, _, _ := strings.Cut(dsn, "://")
		return scheme + "://***"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "***")
	}
	q := u.Query()
	changed := false
	for k := range q {
		if k == "password" || k == "sslpassword" {
			q[k] = []string{"***"}
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	// url.URL escapes the * of the placeholder; people read it better plain.
	return strings.ReplaceAll(u.String(), "%2A%2A%2A", "***")
}

// defaultConnectTimeout bounds a connection attempt when the URL sets no connect_timeout: an unreachable host
// (a dropped SYN) would otherwise hang until the kernel gives up, minutes later.
const defaultConnectTimeout = 10 * time.Second

// openPostgres opens the PostgreSQL database at the URL dsn through pgx's database/sql driver. libpq's
// parameters (sslmode, PGPASSWORD, ~/.pgpass, ...) are honoured as pgx.ParseConfig reads them. readOnly makes
// every transaction of the session read-only (default_transaction_read_only), for `fleet serve`.
func openPostgres(ctx context.Context, dsn string, readOnly bool) (*DB, error) {
	shown := Redact(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w: %v", shown, ErrCannotOpen, parseError(err))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = defaultConnectTimeout
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "fleet"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	sdb := stdlib.OpenDB(*cfg)
	db := &DB{Path: shown, Now: time.Now, db: &conn{DB: sdb, dialect: dialectPostgres}, server: serverName(cfg)}
	if err := sdb.PingContext(ctx); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open database %s: %w", shown, db.connectError(err))
	}
	return db, nil
}

// serverName names the server and database of cfg for messages, without credentials: "host:port/db".
func serverName(cfg *pgx.ConnConfig) string {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		host += "/.s.PGSQL." + strconv.Itoa(int(cfg.Port)) // a Unix socket directory
	} else {
		host = net.JoinHostPort(host, strconv.Itoa(int(cfg.Port)))
	}
	return host + "/" + cfg.Database
}

// parseError is pgx's complaint about a URL without the URL (pgx masks passwords in it only as best it can).
func parseError(err error) string {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		return "cannot parse the URL: " + pe.Unwrap().Error()
	}
	if errors.As(err, &pe) {
		return "cannot parse the URL"
	}
	return err.Error()
}

// connectError explains a failed connection, naming the server and the database.
func (db *DB) connectError(err error) error {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		cause := ce.Unwrap()
		if cause == nil {
			cause = err
		}
		hint := ""
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "3D000" { // invalid_catalog_name
			hint = fmt.Sprintf(" (fleet creates its tables, not the database: createdb %s, or CREATE DATABASE)", ce.Config.Database)
		}
		return &kindError{ErrCannotOpen, &connectError{fmt.Sprintf("cannot connect to PostgreSQL at %s as %s: %s%s",
			db.server, ce.Config.User, firstLines(cause.Error()), hint), err}}
	}
	return classify(err)
}

// connectError is a failed connection, said once: pgx tries each address (and TLS, then not) and reports
// every attempt.
type connectError struct {
	msg string
	err error
}

func (e *connectError) Error() string { return e.msg }
func (e *connectError) Unwrap() error { return e.err }

// firstLines joins the distinct lines of msg.
func firstLines(msg string) string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}

// classifyPostgres adds the matching sentinel to PostgreSQL errors, as classify does for SQLite's.
func classifyPostgres(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "25006" || pe.Code == "42501": // read_only_sql_transaction, insufficient_privilege
			return &kindError{ErrReadOnly, err}
		case pe.Code == "53100": // disk_full
			return &kindError{ErrFull, err}
		case strings.HasPrefix(pe.Code, "28") || pe.Code == "3D000" || strings.HasPrefix(pe.Code, "08") ||
			pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03": // auth, no database, connection, shutdown
			return &kindError{ErrCannotOpen, err}
		}
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return &kindError{ErrCannotOpen, err}
	}
	return err
}

// retryable reports a PostgreSQL transaction that failed only because of a concurrent one (serialization
// failure, deadlock): running it again is correct and will succeed.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// maxTxAttempts bounds retries of a transaction that keeps losing to concurrent ones.
const maxTxAttempts = 10

// retry runs the transaction f again while it fails with a serialization failure or deadlock (PostgreSQL; never
// on SQLite, whose writers queue on the file lock), waiting a little longer each time. It is the one place such
// errors are handled: f must be a whole transaction that can be repeated.
func retry(ctx context.Context, f func() error) error {
	wait := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil || !retryable(err) || attempt == maxTxAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}
