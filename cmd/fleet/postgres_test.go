package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/serve"
	"github.com/fleetlab/fleet/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestCommandLineHidesPasswords(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"fleet", "run", "--db", "postgres://u:s3cret@h/db", "--label", "x"}, "fleet run --db postgres://u:***@h:5432/db --label x"},
		{[]string{"fleet", "runs", "--db=postgresql://u:s3cret@h/db?sslmode=require"}, "fleet runs --db=postgresql://u:***@h:5432/db?sslmode=require"},
		{[]string{"fleet", "runs", "--db", "postgres://u:1234#SECRETPW@h/db"}, "fleet runs --db postgres://***"},
		{[]string{"fleet", "runs", "--db", "host=h password=SECRETPW user=u dbname=d"}, "fleet runs --db postgres://u:***@h:5432/d"},
		{[]string{"fleet", "runs", "--db=POSTGRES://u:SECRETPW@h/d"}, "fleet runs --db=postgres://u:***@h:5432/d"}, // a scheme in any case is a URL
		{[]string{"fleet", "runs", "--db", "x password=SECRETPW"}, "fleet runs --db ***"},
		{[]string{"fleet", "run", "--db", "/srv/fleet.db"}, "fleet run --db /srv/fleet.db"},
	}
	for _, tt := range tests {
		if got := commandLine(tt.args); got != tt.want {
			t.Errorf("commandLine(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestPostgresErrorsExit2: a wrong password, a database nobody created and another application's database are
// configuration errors (exit 2) whose message names the server and database and never the password — whether
// the URL comes from --db or FLEET_DB.
func TestPostgresErrorsExit2(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	foreign := pgtest.NewDatabase(t)
	c, err := pgx.Connect(context.Background(), foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(context.Background(), `CREATE TABLE customers (id BIGINT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
	wrong := strings.Replace(dsn, ":"+pgtest.Password+"@", ":Wr0ng-secret@", 1)
	tests := []struct {
		name, db, want string
		env            bool
	}{
		{"wrong password", wrong, "password authentication failed", false},
		{"wrong password in FLEET_DB", wrong, "password authentication failed", true},
		{"no such database", strings.Replace(dsn, "/t", "/missing_t", 1), `does not exist (SQLSTATE 3D000) (fleet creates its tables, not the database: createdb`, false},
		{"another application's database", foreign, "not a fleet database: it has tables (customers)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"runs", "--db", tt.db}
			if tt.env {
				t.Setenv("FLEET_DB", tt.db)
				args = []string{"runs"}
			}
			stdout, stderr, code := runFleet(t, args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, store.Redact(tt.db)) {
				t.Errorf("fleet runs on %s: exit %d, stderr %q; want exit 2 naming %s and saying %q", tt.name, code, stderr,
					store.Redact(tt.db), tt.want)
			}
			for _, secret := range []string{pgtest.Password, "Wr0ng-secret"} {
				if strings.Contains(stdout+stderr, secret) {
					t.Errorf("the password is shown: %s%s", stdout, stderr)
				}
			}
		})
	}
	if has := tableCount(t, foreign); has != 1 {
		t.Errorf("another application's database has %d tables after fleet refused it, want its 1", has)
	}
}

// wallClock replaces the times of the clock (the import's end, "finished") and durations, which differ
// between two imports of the same capture (the capture's --date stays), and run UUIDs, random by design.
func wallClock(s string) string {
	s = uuidRe.ReplaceAllString(s, "UUID")
	s = timeRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "2026-01-31") {
			return m
		}
		return "TIME"
	})
	return durationRe.ReplaceAllString(s, "DURATION")
}

var (
	timeRe     = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?( UTC)?`)
	uuidRe     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	durationRe = regexp.MustCompile(`\b(\d+(\.\d+)?(ms|h|m|s))+\b`)
)

func tableCount(t *testing.T, dsn string) int {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), `SELECT count(*) FROM information_schema.tables
		WHERE table_schema = current_schema()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestServePostgres: the dashboard reads a PostgreSQL database through a read-only session and serves the same
// pages as from a SQLite file holding the same import.
func TestServePostgres(t *testing.T) {
	dir := t.TempDir()
	capture := filepath.Join(dir, "capture.txt")
	if err := os.WriteFile(capture, []byte(strings.ReplaceAll(hostileCapture, "<", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	pages := []string{"/", "/runs/1", "/compare", "/history?board=lab1&mode=cpu&algorithm=aes-128-cbc&size=1024",
		"/api/runs", "/api/runs/1"}
	bodies := map[string][]string{}
	for _, db := range []string{filepath.Join(dir, "fleet.db"), pgtest.NewDatabase(t)} {
		if _, stderr, code := runFleet(t, "import", "--board", "lab1", "--label", "paste", "--date", "2026-01-31",
			"--db", db, capture); code != 0 {
			t.Fatalf("import exit %d:\n%s", code, stderr)
		}
		rdb, err := store.OpenReadOnly(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rdb.BeginRun(context.Background(), store.RunInfo{}); err == nil {
			t.Errorf("%s: a write through the dashboard's handle succeeded", store.Redact(db))
		}
		s := &serve.Server{DB: rdb, Logf: t.Logf}
		h, err := s.Handler()
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		for _, path := range pages {
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%s: GET %s: %d\n%.500s", store.Redact(db), path, resp.StatusCode, body)
			}
			bodies[db] = append(bodies[db], wallClock(strings.ReplaceAll(string(body), store.Redact(db), "DB")))
		}
		srv.Close()
		rdb.Close()
	}
	var got [][]string
	for _, b := range bodies {
		got = append(got, b)
	}
	for i := range pages {
		if got[0][i] != got[1][i] {
			t.Errorf("GET %s differs between SQLite and PostgreSQL:\n%.2000s\n---\n%.2000s", pages[i], got[0][i], got[1][i])
		}
	}
}
