package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// dsnParams are the connection settings every handle uses. busy_timeout lets writers from several processes
// queue instead of failing; _txlock=immediate takes the write lock at BEGIN, because a deferred transaction that
// reads and then writes can still fail with "database is locked" despite the timeout. synchronous(NORMAL) is
// the usual WAL setting: a committed batch survives a crash of the controller, only a power cut may lose the
// last commits, and it saves an fsync per batch.
const dsnParams = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)" +
	"&_pragma=synchronous(NORMAL)&_txlock=immediate"

// dsnReadOnlyParams open a database that cannot be written, for queries only.
const dsnReadOnlyParams = "mode=ro&immutable=1&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"

// readOnlyFile reports an existing database that cannot be written and has no -wal file with commits
// not yet merged into it (immutable mode would not see them).
func readOnlyFile(path string) bool {
	if _, err := os.Stat(path); err != nil || writable(path) {
		return false
	}
	fi, err := os.Stat(path + "-wal")
	return err != nil || fi.Size() == 0
}

// Errors callers decide on with errors.Is. ErrReadOnly and ErrFull mean the database cannot be written; no
// partial batch is ever left behind by them (the transaction rolls back). ErrNewerSchema means a newer fleet
// migrated the file: Open refuses it before reading or writing anything, since this fleet cannot know what the
// newer schema means. cmd maps them, and ErrCannotOpen, to exit status 2.
var (
	ErrReadOnly    = errors.New("database is read-only")
	ErrFull        = errors.New("database or disk is full")
	ErrCannotOpen  = errors.New("database cannot be opened")
	ErrNotFound    = errors.New("not found")
	ErrNewerSchema = errors.New("written by a newer fleet")
)

// DB is a fleet results database: one SQLite file or one PostgreSQL database.
type DB struct {
	Path string           // file name as given to Open, or the PostgreSQL URL without its password (Redact)
	Now  func() time.Time // clock for run and board times; tests replace it

	// BatchSize and BatchDelay tune how RunWriters commit streamed points: every BatchSize points or
	// BatchDelay after the first uncommitted one (0: 50 points, 250 ms). Set them before BeginRun.
	BatchSize  int
	BatchDelay time.Duration
	// OutageRetry is how long a run's write is tried again while the database cannot be reached (0:
	// DefaultOutageRetry).
	OutageRetry time.Duration

	db       *conn
	stmts    statements
	server   string   // PostgreSQL: host:port/database, for messages
	role     string   // PostgreSQL: the role connected as, for messages of refused privileges
	migrated []string // what Open applied, for `fleet db migrate`
}

// Open opens the database dsn names and applies any pending migrations: an SQLite file (created if needed), or
// a PostgreSQL database given as a postgres:// or postgresql:// URL (which must exist; fleet creates its tables).
// A database of another application (tables, but not fleet's migration history) is refused, not migrated.
// An SQLite database that cannot be written (read-only file, directory or file system) but is up to date opens
// for queries; writing to it then fails with ErrReadOnly.
func Open(ctx context.Context, dsn string) (*DB, error) {
	if IsPostgres(dsn) {
		db, err := openPostgres(ctx, dsn, false)
		if err != nil {
			return nil, err
		}
		if db.migrated, err = db.migrate(ctx); err == nil {
			err = db.checkReadable(ctx)
		}
		if err != nil {
			db.db.Close()
			return nil, Scrub(fmt.Errorf("open database %s: %w", db.Path, err), dsn)
		}
		return db, nil
	}
	return openSQLite(ctx, dsn)
}

// openSQLite opens (creating if needed) the SQLite file at path and migrates it.
func openSQLite(ctx context.Context, path string) (*DB, error) {
	start := time.Now()
	if path == "" {
		return nil, fmt.Errorf("open database: %w: empty path", ErrCannotOpen)
	}
	if err := checkSQLitePath(path); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	params := dsnParams
	if readOnlyFile(path) {
		// SQLite cannot create the -shm file a WAL reader needs there. Nobody can write the file either, so
		// reading it as immutable is exact (readOnlyFile refuses when a -wal file holds unmerged commits).
		params = dsnReadOnlyParams
	}
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path), RawQuery: params}
	sdb, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, classify(err))
	}
	db := &DB{Path: path, Now: time.Now, db: &conn{DB: sdb}}
	// Two processes creating one database at once can see SQLITE_BUSY while the other switches it to WAL or
	// migrates it, before busy_timeout applies (seen: two `fleet run` on a fresh file): try again for a while.
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err = sdb.PingContext(ctx)
		if err != nil {
			err = openError(path, err)
		} else if db.migrated, err = db.migrate(ctx); err != nil {
			err = fullDisk(path, err)
		}
		if err == nil {
			return db, nil
		}
		if !isBusy(err) || wait >= time.Second && time.Since(start) > 15*time.Second {
			sdb.Close()
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			sdb.Close()
			return nil, fmt.Errorf("open database %s: %w", path, err)
		case <-time.After(wait):
		}
	}
}

// isBusy says whether err is SQLite's "database is locked" (SQLITE_BUSY or SQLITE_LOCKED).
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// Close closes the database. RunWriters must be finished first.
func (db *DB) Close() error {
	db.closeStatements()
	if err := db.db.Close(); err != nil {
		return fmt.Errorf("close database %s: %w", db.Path, err)
	}
	return nil
}

// now is the injectable clock in UTC.
func (db *DB) now() time.Time {
	if db.Now == nil {
		return time.Now().UTC()
	}
	return db.Now().UTC()
}

// timeLayout has a fixed width, so stored times sort as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// parseTime reads a stored time; NULL or empty is the zero time.
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid || s.String == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(timeLayout, s.String)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse stored time %q: %w", s.String, err)
	}
	return t, nil
}

// classify adds the matching sentinel to SQLite (or PostgreSQL) errors that mean the database cannot be written
// or opened, keeping the original error in the chain.
func classify(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return classifyPostgres(err)
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
		return &kindError{ErrReadOnly, err}
	case sqlite3.SQLITE_FULL:
		return &kindError{ErrFull, err}
	case sqlite3.SQLITE_CANTOPEN:
		return &kindError{ErrCannotOpen, err}
	}
	return err
}

// kindError is an error from SQLite together with the sentinel that says what it means.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string {
	msg := e.err.Error()
	if strings.HasPrefix(msg, e.kind.Error()) {
		return msg
	}
	return e.kind.Error() + ": " + msg
}

func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// openError explains why SQLite could not open path: a file or directory that cannot be written (SQLite
// needs to create the -wal and -shm files beside a WAL database) is read-only, not merely unopenable.
func openError(path string, err error) error {
	classified := classify(err)
	if errors.Is(classified, ErrCannotOpen) && !writable(path) {
		return &kindError{ErrReadOnly, err}
	}
	return fullDisk(path, classified)
}

// fullDisk marks an I/O error as ErrFull when the file system holding path has no space left: SQLite reports a
// -shm or -wal file it could not grow (SQLITE_IOERR_SHMSIZE, SQLITE_IOERR_WRITE, …) as an I/O error, not as
// SQLITE_FULL, and "disk I/O error (4874)" does not tell a user to free space.
func fullDisk(path string, err error) error {
	var se *sqlite.Error
	if errors.Is(err, ErrFull) || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_IOERR || !diskFull(path) {
		return err
	}
	return &kindError{ErrFull, err}
}
