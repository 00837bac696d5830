package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileConnectionStringsNeverShowThePassword: connection strings that libpq reads differently from
// net/url, or that are not spelled postgres://, never print their password (stdout, stderr, any command) and
// never become an SQLite file named after them; each is refused with exit 2.
func TestHostileConnectionStringsNeverShowThePassword(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "2")
	dir := t.TempDir()
	capture, err := filepath.Abs(capturePath(t, "L01"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // a connection string taken for a file name would be created here
	for _, dsn := range []string{
		"postgres://u:1234#SECRETPW@127.0.0.1:1/db",
		"postgres://u:#SECRETPW@127.0.0.1:1/db",
		"postgres://u:12?SECRETPW@127.0.0.1:1/db",
		"postgres://u@127.0.0.1:1/db?password=50%offSECRETPW",
		"host=127.0.0.1 port=1 password=SECRETPW user=u dbname=d",
		"POSTGRES://u:SECRETPW@127.0.0.1:1/d",
		"postgres:/u:SECRETPW@127.0.0.1:1/d",
	} {
		for _, args := range [][]string{
			{"--db", dsn, "runs"},
			{"--db", dsn, "show", "latest"},
			{"--db", dsn, "import", "--board", "b1", capture},
		} {
			stdout, stderr, code := runFleet(t, args...)
			if strings.Contains(stdout+stderr, "SECRETPW") {
				t.Errorf("fleet %q printed the password:\n%s%s", args, stdout, stderr)
			}
			if code != exitUsage {
				t.Errorf("fleet %q: exit %d, want 2 (stderr %q)", args, code, stderr)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("a file was created for a connection string: %s", filepath.Join(dir, e.Name()))
	}
}
