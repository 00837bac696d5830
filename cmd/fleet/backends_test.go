package main

import (
	"path/filepath"
	"testing"

	"github.com/fleetlab/fleet/internal/pgtest"
)

// dbBackend is a kind of database a CLI test runs against.
type dbBackend struct {
	name   string
	newDSN func(t *testing.T) string // a new, empty database for t: a file name or a postgres:// URL
}

// dbBackends are SQLite (a file in t.TempDir) and PostgreSQL (a fresh database on the test binary's server;
// skipped when PostgreSQL is not installed, unless FLEET_REQUIRE_POSTGRES is set).
var dbBackends = []dbBackend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "fleet.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDatabase(t) }},
}

// forEachDBPair runs f as a subtest per pair of backends, source and destination.
func forEachDBPair(t *testing.T, f func(t *testing.T, src, dst dbBackend)) {
	t.Helper()
	for _, from := range dbBackends {
		for _, to := range dbBackends {
			t.Run(from.name+"_to_"+to.name, func(t *testing.T) { f(t, from, to) })
		}
	}
}
