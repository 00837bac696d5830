package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/pgtest"
)

// dsnCommands are the ways a connection string reaches fleet: --db (before or after the command), FLEET_DB,
// db copy's --from and --to, and serve.
func dsnCommands(t *testing.T, dsn string) []struct {
	args []string
	env  bool
} {
	src := filepath.Join(t.TempDir(), "src.db")
	if _, stderr, code := runFleet(t, "--db", src, "db", "migrate"); code != 0 {
		t.Fatalf("db migrate: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "out.db")
	return []struct {
		args []string
		env  bool
	}{
		{args: []string{"--db", dsn, "runs"}},
		{args: []string{"runs", "--db=" + dsn}},
		{args: []string{"runs"}, env: true},
		{args: []string{"--db", dsn, "results", "--run", "latest"}},
		{args: []string{"db", "copy", "--from", dsn, "--to", out}},
		{args: []string{"db", "copy", "--from", src, "--to", dsn}},
		{args: []string{"--db", dsn, "serve", "--listen", "127.0.0.1:0"}},
		{args: []string{"--db", dsn, "db", "migrate"}},
	}
}

// checkNoSecret runs every command of dsnCommands with dsn and fails when one prints any of secrets or does not
// exit 2.
func checkNoSecret(t *testing.T, dsn string, wantMsg string, secrets ...string) {
	t.Helper()
	for _, cmd := range dsnCommands(t, dsn) {
		if cmd.env {
			t.Setenv("FLEET_DB", dsn)
		}
		stdout, stderr, code := runFleet(t, cmd.args...)
		if cmd.env {
			t.Setenv("FLEET_DB", "")
		}
		for _, s := range secrets {
			if strings.Contains(stdout+stderr, s) {
				t.Errorf("fleet %q (FLEET_DB %v) printed %q of the password:\n%s%s", cmd.args, cmd.env, s, stdout, stderr)
			}
		}
		if code != exitUsage {
			t.Errorf("fleet %q (FLEET_DB %v): exit %d, want 2 (stderr %q)", cmd.args, cmd.env, code, stderr)
		}
		if !strings.Contains(stderr, wantMsg) {
			t.Errorf("fleet %q (FLEET_DB %v): stderr %q, want it to say %q", cmd.args, cmd.env, stderr, wantMsg)
		}
	}
}

// TestUnsafeUserinfoRefused: a URL whose password is not percent-encoded where libpq, pgx and net/url would
// read it differently is refused before any driver reads it, saying to percent-encode the password, and no
// part of the user info is printed by any command that takes a URL.
func TestUnsafeUserinfoRefused(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "2")
	t.Chdir(t.TempDir())
	tests := []struct {
		dsn     string
		secrets []string
	}{
		{"postgres://fleet:Ab@CdSECRETxyz@127.0.0.1:1/fleet", []string{"CdSECRET", "Ab@"}},
		{"postgres://fleet:p#a?s@s%w:rd@127.0.0.1:1/fleet", []string{"p#a", "s%w", "a?s", ":rd"}},
		{"postgres://fleet:SECRET/x@127.0.0.1:1/fleet", []string{"SECRET"}},
		{"postgres://fleet:ab/cdSECRET@127.0.0.1:1/fleet", []string{"cdSECRET", "ab/"}},
		{"postgres://fleet:ab?cdSECRET@127.0.0.1:1/fleet", []string{"cdSECRET"}},
		{"postgres://fleet:50%SECRET@127.0.0.1:1/fleet", []string{"SECRET", "50%"}},
		{"postgres://fleet:ok@127.0.0.1:1/fleet?password=x@ySECRET", []string{"ySECRET"}},
		{"postgresql://fleet:1#2SECRET@127.0.0.1:1/fleet", []string{"2SECRET"}},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			checkNoSecret(t, tt.dsn, "percent-encode the password", tt.secrets...)
		})
	}
}

// TestConnectErrorsHideThePassword: a URL that parses, to a closed port on this machine, fails to connect; the
// error names the server and never the password, however it is spelled (percent-encoded, in the query, in a
// keyword/value string).
func TestConnectErrorsHideThePassword(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "2")
	tests := []struct {
		dsn     string
		secrets []string
	}{
		{"postgres://fleet:plainSECRET@127.0.0.1:1/fleet", []string{"plainSECRET"}},
		{"postgres://fleet:Ab%40CdSECRET%23x@127.0.0.1:1/fleet", []string{"CdSECRET"}},
		{"postgres://fleet:%41%42SECRET%25@127.0.0.1:1/fleet", []string{"ABSECRET", "%41%42SECRET"}},
		{"postgres://fleet@127.0.0.1:1/fleet?password=querySECRET", []string{"querySECRET"}},
		{"postgres://fleet@127.0.0.1:1/fleet?password=50%25offSECRET", []string{"offSECRET"}},
		{"host=127.0.0.1 port=1 user=fleet password='kv SECRET' dbname=fleet", []string{"kv SECRET", "SECRET"}},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			checkNoSecret(t, tt.dsn, "cannot connect to PostgreSQL at 127.0.0.1:1/fleet", tt.secrets...)
		})
	}
}

// TestWrongPasswordHidden: a real server refusing a wrong password: the message says so and shows none of the
// password, in any spelling, from any command.
func TestWrongPasswordHidden(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	for _, pw := range []string{"Wr0ngSECRET", "Wr0ng%40SECRET%23%3F%25", "%3A%2FSECRET"} {
		wrong := strings.Replace(dsn, ":"+pgtest.Password+"@", ":"+pw+"@", 1)
		if wrong == dsn {
			t.Fatalf("test server URL %s has no password to replace", dsn)
		}
		t.Run(pw, func(t *testing.T) {
			checkNoSecret(t, wrong, "password authentication failed", "SECRET")
		})
	}
	// the same server, the password not encoded: refused before it is tried
	unsafe := strings.Replace(dsn, ":"+pgtest.Password+"@", ":Wr@ngSECRET@", 1)
	checkNoSecret(t, unsafe, "percent-encode the password", "SECRET", "ngSECRET")
}
