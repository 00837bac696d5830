package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// shared is the one server of a test binary, started by the first test that asks for it.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
	n    atomic.Int64 // databases created, for unique names
}

// Required reports whether tests must not skip for want of PostgreSQL (FLEET_REQUIRE_POSTGRES set, as in CI).
func Required() bool { return os.Getenv("FLEET_REQUIRE_POSTGRES") != "" }

// Skip skips t when PostgreSQL's binaries are missing, or fails it when they are required.
func Skip(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoBinaries) && !Required() {
		t.Skipf("skipping PostgreSQL test: %v (set FLEET_REQUIRE_POSTGRES=1 to fail instead)", err)
	}
	t.Fatalf("PostgreSQL test server: %v", err)
}

// Shared returns the test binary's server, starting it on first use. Call Main from TestMain to stop it.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = Start(context.Background()) })
	if shared.err != nil {
		Skip(t, shared.err)
	}
	return shared.srv
}

// NewDatabase creates a fresh database on the shared server for t and returns its URL.
func NewDatabase(t testing.TB) string {
	t.Helper()
	srv := Shared(t)
	dsn, err := srv.CreateDatabase(context.Background(), DatabaseName(t))
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// DatabaseName is a new database name made from t's name, unique within the test binary.
func DatabaseName(t testing.TB) string {
	name := unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	return fmt.Sprintf("t%d_%s", shared.n.Add(1), name)
}

// Main runs the tests and stops the shared server if one was started: use it as
// `func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }`.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: stop server:", err)
		}
	}
	return code
}
