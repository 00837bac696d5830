package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestNewDatabase: each call gives a new, empty database that accepts the password over TCP.
func TestNewDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("NewDatabase twice = %s, want two databases", a)
	}
	c, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `CREATE TABLE mine (x INT)`); err != nil {
		t.Fatal(err)
	}
	c2, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var n int
	if err := c2.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_name = 'mine'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the second database sees %d tables named mine (%v), want 0: databases must be independent", n, err)
	}
	var super bool
	if err := c.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil || !super {
		t.Errorf("connected as superuser = %v, %v; want the initdb superuser", super, err)
	}
}

// TestKillAndRestart: a killed server comes back on the same port with its committed data.
func TestKillAndRestart(t *testing.T) {
	ctx := context.Background()
	srv, err := Start(ctx)
	if err != nil {
		Skip(t, err)
	}
	defer srv.Stop()
	dsn, err := srv.CreateDatabase(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Exec(ctx, "kept", `CREATE TABLE t (x INT); INSERT INTO t VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if _, err := pgx.Connect(ctx, dsn); err == nil {
		t.Fatal("connected to a killed server")
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var x int
	if err := c.QueryRow(ctx, `SELECT x FROM t`).Scan(&x); err != nil || x != 42 {
		t.Errorf("after restart: x = %d, %v; want the committed 42", x, err)
	}
}
