package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/bench/internal/smoke"
	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/internal/pgtest"
)

// checkOutput checks the lines the benchmark's figures are read from: the ingest's rate and every query's median.
func checkOutput(t *testing.T, out string) {
	t.Helper()
	n := smoke.Number
	smoke.Line(t, out, `^ingest: [0-9]+ points in `+n+` s wall = `+n+` points/s; `+n+` s CPU`)
	smoke.Line(t, out, `^query: .* +[0-9]+ rows +median +`+n+` ms`)
}

// TestSmoke runs the benchmark at its smallest on SQLite: 4,000 points from 2 boards, each query once.
func TestSmoke(t *testing.T) {
	smoke.Need(t)
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/store")
	out := smoke.Run(t, smoke.Cmd{Args: []string{bin, "-points", "4000", "-boards", "2", "-queries", "1",
		"-db", filepath.Join(t.TempDir(), "fleet.db")}})
	checkOutput(t, out)
}

// TestSmokePostgres runs it on a throwaway PostgreSQL server (internal/pgtest, as -postgres starts one), with
// bench/store/pgcpu.sh reading the server's CPU seconds before and after. Skipped without the server's
// binaries, unless FLEET_REQUIRE_POSTGRES is set (test.sh sets it), as the store's own tests are.
func TestSmokePostgres(t *testing.T) {
	smoke.Need(t)
	ctx := context.Background()
	srv, err := pgtest.Start(ctx)
	if errors.Is(err, pgtest.ErrNoBinaries) && os.Getenv("FLEET_REQUIRE_POSTGRES") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	dsn, err := srv.CreateDatabase(ctx, "bench")
	if err != nil {
		t.Fatal(err)
	}
	pgcpu := func() float64 {
		out := smoke.Run(t, smoke.Cmd{Args: []string{"sh", "pgcpu.sh", filepath.Join(srv.Dir, "data")}})
		v, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
		if err != nil {
			t.Fatalf("pgcpu.sh printed %q, want CPU seconds", out)
		}
		return v
	}
	before := pgcpu()
	bin := buildtest.Binary(t, "github.com/fleetlab/fleet/bench/store")
	checkOutput(t, smoke.Run(t, smoke.Cmd{Args: []string{bin, "-points", "4000", "-boards", "2", "-queries", "1", "-db", dsn}}))
	if after := pgcpu(); after < before {
		t.Errorf("pgcpu.sh: %.2f s after the run, %.2f s before: the server's CPU time went down", after, before)
	}
}
