package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/store"
)

// mrCapture is a small `openssl speed -mr -evp aes-128-cbc` output (the machine-readable form), for import.
const mrCapture = `+DT:aes-128-cbc:3:16
+R:135704772:aes-128-cbc:2.980000
+DT:aes-128-cbc:3:64
+R:36835089:aes-128-cbc:3.000000
+H:16:64
+F:22:aes-128-cbc:728616225.50:785815232.00
`

// TestEveryCommandRefusesNewerSchema: every command that opens the database, reading or writing, refuses one a
// newer fleet wrote, with exit 2 and "written by a newer fleet (schema N > M); upgrade fleet", and leaves it as
// it was.
func TestEveryCommandRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fleet.db")
	storeSweep(t, path, "nightly", map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6})
	storeSweep(t, path, "", map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6})
	capture := filepath.Join(dir, "capture.txt")
	if err := os.WriteFile(capture, []byte(mrCapture), 0o644); err != nil {
		t.Fatal(err)
	}
	// The capture imports into a database this fleet wrote: what the newer one refuses is the schema.
	if _, stderr, code := runFleet(t, "import", "--board", "x86", "--db", filepath.Join(dir, "ok.db"), capture); code != 0 {
		t.Fatalf("import into a current database: exit %d: %s", code, stderr)
	}
	newest := schemaOf(t, path)
	future := newest + 1
	execSQL(t, path, fmt.Sprintf(`INSERT INTO schema_migrations (version, name, applied) VALUES (%d, 'future.sql', 'x')`, future))
	before := contentOf(t, path)
	want := fmt.Sprintf("written by a newer fleet (schema %d > %d); upgrade fleet", future, newest)

	for _, args := range [][]string{
		{"run", "--boards", "local", "--modes", "cpu", "--algorithms", "aes-128-cbc", "--sizes", "16"},
		{"import", "--board", "x86", capture},
		{"runs"},
		{"results"},
		{"history", "--board", "am64x", "--mode", "cpu", "--algorithm", "aes-128-cbc", "--size", "16"},
		{"show", "1"},
		{"compare"},
		{"regress", "--baseline", "nightly"},
		{"report", "-o", filepath.Join(dir, "report.html")},
		{"boards", "list"},
		{"db", "migrate"},
	} {
		t.Run(args[0], func(t *testing.T) {
			_, stderr, code := runFleet(t, append(args, "--db", path)...)
			if got, want := code, exitUsage; got != want {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, want, stderr)
			}
			if !strings.Contains(stderr, want) || !strings.Contains(stderr, path) {
				t.Errorf("stderr = %q, want it to name %s and say %q", stderr, path, want)
			}
			if after := contentOf(t, path); after != before {
				t.Errorf("the database changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("report wrote report.html from a database it refused")
	}
}

// sqlOpen opens the database with database/sql directly (the drivers store registers), bypassing store.Open.
func sqlOpen(t *testing.T, path string) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", "file:"+path
	if store.IsPostgres(path) {
		driver, dsn = "pgx", path
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func execSQL(t *testing.T, path, stmt string) {
	t.Helper()
	if _, err := sqlOpen(t, path).Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func schemaOf(t *testing.T, path string) int {
	t.Helper()
	var v int
	if err := sqlOpen(t, path).QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// contentOf summarizes what a command could have written: migrations, runs and points.
func contentOf(t *testing.T, path string) string {
	t.Helper()
	versions := `(SELECT group_concat(version) FROM schema_migrations)`
	if store.IsPostgres(path) {
		versions = `(SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations)`
	}
	var s string
	err := sqlOpen(t, path).QueryRow(`SELECT ` + versions + ` || ' runs ' ||
		(SELECT count(*) FROM runs) || ' points ' || (SELECT count(*) FROM measurements)`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
