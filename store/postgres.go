package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// IsPostgres reports whether dsn names a PostgreSQL database rather than an SQLite file: a URL whose scheme is
// postgres or postgresql in any case (a malformed one too, so that it is refused rather than created as a file
// of that name), or a libpq keyword/value string ("host=db user=fleet dbname=fleet").
func IsPostgres(dsn string) bool {
	lower := strings.ToLower(strings.TrimSpace(dsn))
	if strings.HasPrefix(lower, "postgres:") || strings.HasPrefix(lower, "postgresql:") {
		return true
	}
	m := keywordValueRE.FindStringSubmatch(lower)
	return m != nil && libpqKeywords[m[1]]
}

// keywordValueRE matches the first keyword of a keyword/value connection string.
var keywordValueRE = regexp.MustCompile(`^\s*([a-z_]+)\s*=`)

// libpqKeywords are the connection parameters of libpq (and pgx) that may open a keyword/value string.
var libpqKeywords = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "connect_timeout": true, "sslmode": true, "sslcert": true, "sslkey": true,
	"sslrootcert": true, "sslpassword": true, "service": true, "servicefile": true, "target_session_attrs": true,
	"application_name": true, "options": true, "client_encoding": true,
}

// Redact returns dsn as it may be shown or stored: a file name as it is; a PostgreSQL connection string rebuilt
// from what the driver (pgx, with libpq's rules) reads in it — scheme://user:***@host:port/dbname, the password
// never shown, however it is spelled (a '#', '?' or '/' inside it, percent-encoding, a password parameter, a
// keyword/value string). A string the driver cannot read shows nothing but its scheme: without the driver's
// reading, where a password starts and ends is not known. fleet prints and records only this form.
func Redact(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	scheme := "postgres"
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(dsn)), "postgresql:") {
		scheme = "postgresql"
	}
	if checkUserinfo(dsn) != nil {
		return scheme + "://***" // where its password ends is not certain: show nothing of it
	}
	cfg, err := pgx.ParseConfig(lowerScheme(dsn))
	if err != nil || strings.Contains(cfg.Host+cfg.Database+cfg.User, "@") {
		// an '@' past the authority ("u:12/PW@host/db" is host u, port 12, database "PW@host/db" to libpq)
		// means the author meant something else there: likely a password
		return scheme + "://***"
	}
	var b strings.Builder
	b.WriteString(scheme + "://")
	if cfg.User != "" {
		b.WriteString(url.PathEscape(cfg.User))
		if cfg.Password != "" && dsnHasPassword(dsn) {
			b.WriteString(":***") // (one from PGPASSWORD or ~/.pgpass is not part of what was given)
		}
		b.WriteString("@")
	}
	b.WriteString(serverName(cfg))
	if m := sslmodeRE.FindStringSubmatch(dsn); m != nil {
		b.WriteString("?sslmode=" + m[1])
	}
	return b.String()
}

// dsnHasPassword says whether a connection string carries a password itself: in a URL's user info (a ':' before
// the '@' that ends it) or as a password parameter.
func dsnHasPassword(dsn string) bool {
	if strings.Contains(strings.ToLower(dsn), "password=") {
		return true
	}
	_, rest, ok := strings.Cut(dsn, "://")
	if at := strings.LastIndex(rest, "@"); ok && at >= 0 {
		return strings.Contains(rest[:at], ":")
	}
	return false
}

// sslmodeRE finds the sslmode of a connection string, shown with it because it says how the server is trusted.
var sslmodeRE = regexp.MustCompile(`(?:[?&]|^|\s)sslmode=(disable|allow|prefer|require|verify-ca|verify-full)\b`)

// defaultConnectTimeout bounds a connection attempt when the URL sets no connect_timeout: an unreachable host
// (a dropped SYN) would otherwise hang until the kernel gives up, minutes later.
const defaultConnectTimeout = 10 * time.Second

// maxPostgresConns caps the connections one fleet process holds to PostgreSQL. database/sql's default is no cap:
// a run over 500 boards opened a connection for nearly every board writing or taking its lease at once, and 4
// such controllers on one database exhausted its max_connections ("sorry, too many clients already"), failing
// half their boards. Statements and transactions are short, so 8 keep a run's writes flowing (the rest wait a
// moment in database/sql's queue), and a lab's controllers, K × 8 of them, fit PostgreSQL's default of 100;
// kept idle, they are not reopened (a new connection is a new server process) for each board's write.
const maxPostgresConns = 8

// openPostgres opens the PostgreSQL database at the URL dsn through pgx's database/sql driver. libpq's
// parameters (sslmode, PGPASSWORD, ~/.pgpass, ...) are honoured as pgx.ParseConfig reads them. readOnly makes
// every transaction of the session read-only (default_transaction_read_only), for `fleet serve`. A URL whose
// password is not certain to end where libpq ends it is refused before the driver reads it (checkUserinfo), and
// every error returned has the passwords of dsn, and the one pgx found (PGPASSWORD, ~/.pgpass), scrubbed out.
func openPostgres(ctx context.Context, dsn string, readOnly bool) (_ *DB, err error) {
	shown := Redact(dsn)
	if err := checkUserinfo(dsn); err != nil {
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	cfg, err := pgx.ParseConfig(lowerScheme(dsn))
	if err != nil {
		return nil, Scrub(fmt.Errorf("open database %s: %w: %v", shown, ErrCannotOpen, parseError(err, dsn)), dsn)
	}
	defer func() { err = scrubSecrets(Scrub(err, dsn), cfg.Password) }()
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
	sdb.SetMaxOpenConns(maxPostgresConns)
	sdb.SetMaxIdleConns(maxPostgresConns)
	db := &DB{Path: shown, Now: time.Now, db: &conn{DB: sdb, dialect: dialectPostgres}, server: serverName(cfg), role: cfg.User}
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

// lowerScheme is dsn with its postgres:// or postgresql:// scheme in lower case. URL schemes are
// case-insensitive (RFC 3986), but pgx reads a URL only under a lower-case prefix and takes POSTGRES://… for a
// keyword/value string ("invalid keyword/value"); IsPostgres and Redact already take any case.
func lowerScheme(dsn string) string {
	t := strings.TrimLeft(dsn, " \t\r\n")
	for _, scheme := range []string{"postgresql://", "postgres://"} {
		if len(t) >= len(scheme) && strings.EqualFold(t[:len(scheme)], scheme) {
			return scheme + t[len(scheme):]
		}
	}
	return dsn
}

// parseError is pgx's complaint about a URL without the URL (pgx masks passwords in it only as best it can):
// the error it wraps, else its own words after the quoted string ("invalid port"), with the port named when
// that is what is wrong (pgx says only "invalid port" of 99999, 0 or abc).
func parseError(err error, dsn string) string {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	if pe.Unwrap() != nil {
		return "cannot parse the URL: " + pe.Unwrap().Error()
	}
	msg := pe.Error()
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		msg = msg[i+len("`: "):]
	} else {
		return "cannot parse the URL"
	}
	if msg == "invalid port" {
		if port, ok := dsnPort(dsn); ok {
			return fmt.Sprintf("cannot parse the URL: port %s is not a number from 1 to 65535", port)
		}
	}
	return "cannot parse the URL: " + msg
}

// dsnPort is the port a URL names after its host (the last ':' of the authority past a ']'), cut to 20 bytes.
func dsnPort(dsn string) (string, bool) {
	rest, ok := urlAfterScheme(dsn)
	if !ok {
		if m := portKeywordRE.FindStringSubmatch(dsn); m != nil {
			return strconv.Quote(cutPort(m[1])), true
		}
		return "", false
	}
	authority := rest[:strings.IndexAny(rest+"/", "/?#")]
	host := authority[strings.LastIndex(authority, "@")+1:]
	if i := strings.LastIndexByte(host, ':'); i >= 0 && i > strings.LastIndexByte(host, ']') {
		return strconv.Quote(cutPort(host[i+1:])), true
	}
	return "", false
}

// portKeywordRE finds the port of a keyword/value string.
var portKeywordRE = regexp.MustCompile(`(?:^|\s)port\s*=\s*(\S*)`)

// cutPort keeps a message short whatever was typed as a port.
func cutPort(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
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
	var ne net.Error
	if pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) {
		// pgx's own words for a server that went away ("conn closed", "unexpected EOF") do not say so.
		return &kindError{errConnectionLost, err}
	}
	return err
}

// errConnectionLost is a PostgreSQL server that stopped answering during the work (it stopped, crashed or the
// network broke): what was committed before stays, the transaction in flight is gone.
var errConnectionLost = errors.New("lost the connection to the database server")

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
