package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/protocol"
)

// TestRedact: a password never survives, however the driver reads it; what is shown is what pgx connects to.
func TestRedact(t *testing.T) {
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", "/nonexistent")
	t.Setenv("PGUSER", "")
	tests := []struct{ dsn, want string }{
		{"fleet.db", "fleet.db"},
		{"/var/lib/fleet/fleet.db", "/var/lib/fleet/fleet.db"},
		{"host.db", "host.db"},
		{"postgres://fleet:s3cret@db.lab:5432/fleet?sslmode=require", "postgres://fleet:***@db.lab:5432/fleet?sslmode=require"},
		{"postgresql://fleet:p%40ss@db/fleet", "postgresql://fleet:***@db:5432/fleet"},
		{"postgres://fleet@db/fleet", "postgres://fleet@db:5432/fleet"},
		{"postgres://db/fleet?user=fleet&password=s3cret", "postgres://fleet:***@db:5432/fleet"},
		{"postgres://fleet:s3cret@[::1", "postgres://***"}, // unparsable: nothing after the scheme
		// libpq's reading of the user info differs from net/url's ('#', '?' are part of the password to libpq,
		// not to net/url): such a URL is refused (checkUserinfo) and shows nothing
		{"postgres://u:1234#SECRETPW@host/db", "postgres://***"},
		{"postgres://u:#SECRETPW@host/db", "postgres://***"},
		{"postgres://u:12?SECRETPW@host/db", "postgres://***"},
		{"postgres://u:12/SECRETPW@host/db", "postgres://***"}, // to libpq: host u, port 12, database "SECRETPW@host/db"
		{"postgres://u@host/db?password=50%offSECRETPW", "postgres://***"},
		{"POSTGRES://u:SECRETPW@host/db", "postgres://u:***@host:5432/db"}, // a scheme in any case is a URL
		{"postgres:/u:SECRETPW@host/db", "postgres://***"},
		{"host=127.0.0.1 password=SECRETPW user=u dbname=d", "postgres://u:***@127.0.0.1:5432/d"},
		{"  user=u password='SECRET PW' host=db sslmode=disable", "postgres://u:***@db:5432/?sslmode=disable"},
	}
	for _, tt := range tests {
		got := Redact(tt.dsn)
		if got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("Redact(%q) = %q shows the password", tt.dsn, got)
		}
	}
}

// TestIsPostgres: every spelling the driver accepts, and malformed URLs of its scheme, are PostgreSQL (and are
// refused when wrong), never an SQLite file named after the connection string.
func TestIsPostgres(t *testing.T) {
	for dsn, want := range map[string]bool{
		"fleet.db": false, "./host=x.db": false, "postgres://h/d": true, "postgresql://h/d": true,
		"POSTGRES://h/d": true, "Postgresql://h/d": true, "postgres:/h/d": true, "host=h dbname=d": true,
		" dbname=d": true, "foo=bar.db": false, "": false,
	} {
		if got := IsPostgres(dsn); got != want {
			t.Errorf("IsPostgres(%q) = %v, want %v", dsn, got, want)
		}
	}
}

func TestRebindDollar(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"(?1 = '' OR x = ?1) AND y = ?2", "($1 = '' OR x = $1) AND y = $2"},
		{"x = ?3 AND y = ?", "x = $3 AND y = $4"},
		{"x = '?' AND \"a?\" = ?", "x = '?' AND \"a?\" = $1"},
		{"LIMIT ?5 OFFSET ?6", "LIMIT $5 OFFSET $6"},
	}
	for _, tt := range tests {
		if got := rebindDollar(tt.in); got != tt.want {
			t.Errorf("rebindDollar(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRetryOnConcurrentAbort: a transaction aborted as a deadlock victim or for a serialization failure runs
// again; any other error is returned at once.
func TestRetryOnConcurrentAbort(t *testing.T) {
	for _, tt := range []struct {
		code  string
		calls int
	}{{"40P01", 3}, {"40001", 3}, {"23505", 1}} {
		calls := 0
		err := retry(context.Background(), func() error {
			calls++
			if calls < 3 {
				return fmt.Errorf("store batch: %w", &pgconn.PgError{Code: tt.code})
			}
			return nil
		})
		if calls != tt.calls || (tt.calls == 3) != (err == nil) {
			t.Errorf("SQLSTATE %s: %d calls, err %v; want %d calls", tt.code, calls, err, tt.calls)
		}
	}
}

// TestOpenPostgresWrongPassword: a clear error that names the server and database, never the password.
func TestOpenPostgresWrongPassword(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	bad := strings.Replace(dsn, ":"+pgtest.Password+"@", ":wrong-Pa55word@", 1)
	_, err := Open(context.Background(), bad)
	if !errors.Is(err, ErrCannotOpen) {
		t.Fatalf("Open(wrong password) = %v, want ErrCannotOpen", err)
	}
	u, _ := url.Parse(dsn)
	msg := err.Error()
	for _, want := range []string{"cannot connect to PostgreSQL at " + u.Host + u.Path, "password authentication failed", ":***@"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Open(wrong password) = %q, want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, "wrong-Pa55word") {
		t.Errorf("Open(wrong password) = %q shows the password", msg)
	}
}

// TestOpenPostgresUnreachable: nobody listens on the port; the error names host:port.
func TestOpenPostgresUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dsn := "postgres://fleet:s3cret@127.0.0.1:" + strconv.Itoa(port) + "/fleet?connect_timeout=5"
	_, err = Open(context.Background(), dsn)
	if !errors.Is(err, ErrCannotOpen) {
		t.Fatalf("Open(unreachable) = %v, want ErrCannotOpen", err)
	}
	msg := err.Error()
	if want := fmt.Sprintf("cannot connect to PostgreSQL at 127.0.0.1:%d/fleet", port); !strings.Contains(msg, want) {
		t.Errorf("Open(unreachable) = %q, want it to say %q", msg, want)
	}
	if strings.Contains(msg, "s3cret") {
		t.Errorf("Open(unreachable) = %q shows the password", msg)
	}
}

// TestOpenPostgresPasswordFromEnvironment: the password may come from PGPASSWORD or a password file as libpq's
// tools take it; the URL shown then has none to hide.
func TestOpenPostgresPasswordFromEnvironment(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	bare := strings.Replace(dsn, ":"+pgtest.Password+"@", "@", 1)
	t.Run("PGPASSWORD", func(t *testing.T) {
		t.Setenv("PGPASSWORD", pgtest.Password)
		db := openAt(t, bare)
		if db.Path != bare {
			t.Errorf("Path = %q, want %q", db.Path, bare)
		}
	})
	t.Run("passfile", func(t *testing.T) {
		u, _ := url.Parse(dsn)
		pass := filepath.Join(t.TempDir(), "pgpass")
		line := fmt.Sprintf("%s:%s:*:%s:%s\n", u.Hostname(), u.Port(), pgtest.User, pgtest.Password)
		if err := os.WriteFile(pass, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PGPASSWORD", "")
		t.Setenv("PGPASSFILE", pass)
		openAt(t, bare)
	})
}

// TestOpenRefusesForeignDatabase: a database another application uses is refused, and nothing is added to it.
func TestOpenRefusesForeignDatabase(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, tc := range []struct {
			name, ddl, want string
		}{
			{"tables without schema_migrations", `CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)`,
				"not a fleet database: it has tables (invoices) but no schema_migrations"},
			{"another tool's schema_migrations", `CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, dirty BOOLEAN NOT NULL)`,
				"not a fleet database: its schema_migrations has columns (dirty, version)"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				dsn := b.newDSN(t)
				foreign := foreignDB(t, dsn, tc.ddl)
				_, err := Open(ctx, dsn)
				if !errors.Is(err, ErrCannotOpen) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Open(foreign database) = %v, want ErrCannotOpen saying %q", err, tc.want)
				}
				if has, err := foreign.hasTable(ctx, "runs"); err != nil || has {
					t.Errorf("hasTable(runs) = %v, %v after a refused Open; want false", has, err)
				}
				if _, err := OpenReadOnly(ctx, dsn); !errors.Is(err, ErrCannotOpen) {
					t.Errorf("OpenReadOnly(foreign database) = %v, want ErrCannotOpen", err)
				}
			})
		}
	})
}

// foreignDB creates another application's table in the (empty) database dsn, bypassing Open, and returns a
// handle that reads its schema without migrating it.
func foreignDB(t *testing.T, dsn, ddl string) *DB {
	t.Helper()
	ctx := context.Background()
	var db *DB
	var err error
	if IsPostgres(dsn) {
		db, err = openPostgres(ctx, dsn, false)
	} else {
		var sdb *sql.DB
		sdb, err = sql.Open("sqlite", dsn)
		db = &DB{Path: dsn, db: &conn{DB: sdb}}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.db.ExecContext(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestTextPostgresRefuses: bytes that are not UTF-8 and NUL, which SQLite stores as they came and PostgreSQL's
// text refuses, do not fail the batch on PostgreSQL: they are stored as U+FFFD.
func TestTextPostgresRefuses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		stdout := "temp 45\xb0C\x00 done" // Latin-1 degree sign, then NUL
		if err := w.Raw(ctx, "a", protocol.Raw{ID: 1, Command: []string{"openssl"}, Stdout: stdout}); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatalf("Finish = %v, want the raw output stored", err)
		}
		raws, err := db.RawOutputs(ctx, w.RunID(), "a")
		if err != nil || len(raws) != 1 {
			t.Fatalf("RawOutputs = %v, %v", raws, err)
		}
		want := stdout
		if b.name == "postgres" {
			want = "temp 45\uFFFDC\uFFFD done"
		}
		if got := raws[0].Stdout; got != want {
			t.Errorf("stored stdout %q, want %q", got, want)
		}
	})
}

// TestOpenPostgresSchema: with search_path, fleet's tables live in a schema of their own, beside another
// application's tables in public, which are neither refused nor touched.
func TestOpenPostgresSchema(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	other := foreignDB(t, dsn, `CREATE TABLE invoices (id BIGINT PRIMARY KEY); CREATE SCHEMA results`)
	db := openAt(t, dsn+"&search_path=results")
	seedRun := func(db *DB) {
		w, err := db.BeginRun(ctx, RunInfo{Label: "in-schema"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
	}
	seedRun(db)
	var n int
	if err := other.db.QueryRowContext(ctx, `SELECT count(*) FROM results.runs WHERE label = 'in-schema'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("results.runs holds %d of the run (%v), want 1", n, err)
	}
	if has, err := other.hasTable(ctx, "runs"); err != nil || has {
		t.Errorf("public has fleet's runs table = %v, %v; want false", has, err)
	}
}

// TestOpenPostgresCapsConnections: one process holds at most maxPostgresConns connections, kept idle, so that
// K controllers over hundreds of boards each fit the server's max_connections. Before, database/sql's default
// (0, no cap) let each controller open one per board writing at once.
func TestOpenPostgresCapsConnections(t *testing.T) {
	db := openAt(t, pgtest.NewDatabase(t))
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 4 * maxPostgresConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := db.db.ExecContext(ctx, `SELECT pg_sleep(0.05)`); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	st := db.db.Stats()
	if st.MaxOpenConnections != maxPostgresConns || st.OpenConnections > maxPostgresConns {
		t.Errorf("pool: max %d, %d open, want at most %d", st.MaxOpenConnections, st.OpenConnections, maxPostgresConns)
	}
	if st.Idle != st.OpenConnections {
		t.Errorf("%d of %d connections idle after the burst, want all kept", st.Idle, st.OpenConnections)
	}
}
