package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/store"
)

// TestDBCopyTwiceCopiesNothingTheSecondTime: fleet db copy into a new file copies every run and says so; the
// same command again finds them all there by UUID and copies nothing.
func TestDBCopyTwiceCopiesNothingTheSecondTime(t *testing.T) {
	forEachDBPair(t, func(t *testing.T, from, to dbBackend) {
		testDBCopyTwice(t, goldenDBAt(t, from.newDSN(t)), to.newDSN(t))
	})
}

func testDBCopyTwice(t *testing.T, src, dst string) {
	for _, want := range []string{"copied 2 runs (110 points)\n", "copied 0 runs, 2 already there\n"} {
		stdout, stderr, code := runFleet(t, "db", "copy", "--from", src, "--to", dst)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("fleet db copy: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, stdout, stderr, want)
		}
	}
	// Each run shows the same in dst as in src under its UUID, ids aside.
	for _, u := range runUUIDs(t, src) {
		got, want := showJSON(t, dst, u), showJSON(t, src, u)
		if got != want {
			t.Errorf("fleet show %s differs between dst and src:\ndst %s\nsrc %s", u, got, want)
		}
	}
}

// TestDBCopyKeepsLatestRight: the newest run copied first and the older one after, the latest of each board in
// dst is still the newest: fleet compare (latest per board) prints the same for both databases.
func TestDBCopyKeepsLatestRight(t *testing.T) {
	forEachDBPair(t, func(t *testing.T, from, to dbBackend) {
		testDBCopyKeepsLatestRight(t, goldenDBAt(t, from.newDSN(t)), to.newDSN(t))
	})
}

func testDBCopyKeepsLatestRight(t *testing.T, src, dst string) {
	for _, args := range [][]string{{"--runs", "2"}, {}} {
		if _, stderr, code := runFleet(t, append([]string{"db", "copy", "--from", src, "--to", dst}, args...)...); code != 0 {
			t.Fatalf("fleet db copy %v: exit %d: %s", args, code, stderr)
		}
	}
	// run ids are each database's own (runs move by UUID): the tables' headings name them, so they are left out
	ids := regexp.MustCompile(`\brun \d+, `)
	got, _, _ := runFleet(t, "compare", "--db", dst)
	want, _, _ := runFleet(t, "compare", "--db", src)
	got, want = ids.ReplaceAllString(got, "run N, "), ids.ReplaceAllString(want, "run N, ")
	if got != want || !strings.Contains(want, "300.0") {
		t.Errorf("fleet compare on the copy differs from the source:\n%s", golden.Diff(want, got))
	}
}

// TestDBCopyRefusesNewerDestination: a DST migrated by a newer fleet is refused before anything is written
// (exit 2), and so is a SRC that a newer fleet wrote.
func TestDBCopyRefusesNewerDestination(t *testing.T) {
	for _, b := range dbBackends {
		t.Run(b.name, func(t *testing.T) {
			dst := b.newDSN(t)
			if _, stderr, code := runFleet(t, "db", "migrate", "--db", dst); code != 0 {
				t.Fatalf("fleet db migrate: exit %d: %s", code, stderr)
			}
			testDBCopyRefusesNewer(t, goldenDB(t), dst)
		})
	}
}

func testDBCopyRefusesNewer(t *testing.T, src, dst string) {
	newest := schemaOf(t, dst)
	execSQL(t, dst, fmt.Sprintf(`INSERT INTO schema_migrations (version, name, applied) VALUES (%d, 'future.sql', 'x')`, newest+1))
	before := contentOf(t, dst)
	want := fmt.Sprintf("written by a newer fleet (schema %d > %d); upgrade fleet", newest+1, newest)
	for _, args := range [][]string{{"--from", src, "--to", dst}, {"--from", dst, "--to", src}} {
		stdout, stderr, code := runFleet(t, append([]string{"db", "copy"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, store.Redact(dst)) || stdout != "" {
			t.Errorf("fleet db copy %v: exit %d, stdout %q, stderr %q; want exit 2 naming %s: %q", args, code, stdout,
				stderr, store.Redact(dst), want)
		}
		if strings.Contains(stderr, pgtest.Password) {
			t.Errorf("fleet db copy printed the database password: %q", stderr)
		}
	}
	if after := contentOf(t, dst); after != before {
		t.Errorf("the newer database changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestDBCopyRefusesBadFlags: the databases are named by --from and --to only, never the same one; --runs takes
// ids and UUIDs.
func TestDBCopyRefusesBadFlags(t *testing.T) {
	src := goldenDB(t)
	dst := filepath.Join(t.TempDir(), "copy.db")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", src, "--to", src}, "--from and --to name the same database"},
		{[]string{"--from", src, "--to", dst, "--db", dst}, "db copy does not use --db"},
		{[]string{"--from", src, "--to", dst, "--runs", "1,x"}, `--runs: "x" is neither a run id`},
		{[]string{"--from", src, "--to", dst, "--since", "yesterday"}, `--since: "yesterday" is neither`},
		{[]string{"--from", filepath.Join(t.TempDir(), "none.db"), "--to", dst}, "--from: open database"},
		{[]string{"--to", dst}, "db copy: missing --from\nusage: fleet db copy --from SRC --to DST [options]"},
	} {
		_, stderr, code := runFleet(t, append([]string{"db", "copy"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("fleet db copy %v: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	if _, err := os.Stat(dst); err == nil {
		t.Errorf("a refused copy created %s", dst)
	}
}

// TestDBCopyFromOlderSource: a SRC an older fleet wrote (no run UUIDs yet) is only read, so it cannot be
// migrated on the way: the copy says how to upgrade it, and after fleet db migrate it copies.
func TestDBCopyFromOlderSource(t *testing.T) {
	for _, b := range dbBackends {
		t.Run(b.name, func(t *testing.T) {
			testDBCopyFromOlderSource(t, goldenDBAt(t, b.newDSN(t)), filepath.Join(t.TempDir(), "copy.db"))
		})
	}
}

func testDBCopyFromOlderSource(t *testing.T, src, dst string) {
	downgradeRunUUID(t, src)
	_, stderr, code := runFleet(t, "db", "copy", "--from", src, "--to", dst)
	if code != exitUsage || !strings.Contains(stderr, "written by an older fleet") || !strings.Contains(stderr, "fleet db migrate --db SRC") {
		t.Errorf("copy from an older database: exit %d, stderr %q; want exit 2 naming fleet db migrate", code, stderr)
	}
	if stdout, stderr, code := runFleet(t, "db", "migrate", "--db", src); code != 0 || !strings.HasPrefix(stdout, "applied 0004_run_uuid; schema ") {
		t.Fatalf("fleet db migrate: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, stderr, code := runFleet(t, "db", "copy", "--from", src, "--to", dst); code != 0 || stdout != "copied 2 runs (110 points)\n" {
		t.Errorf("copy after migrating: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDBMigrate: fleet db migrate creates a database with every migration, says so, then finds it up to date;
// a database missing 0004 gets it (every run a UUID); a newer one is refused with exit 2 and left as it was.
func TestDBMigrate(t *testing.T) {
	for _, b := range dbBackends {
		t.Run(b.name, func(t *testing.T) { testDBMigrate(t, b) })
	}
}

func testDBMigrate(t *testing.T, b dbBackend) {
	path := b.newDSN(t)
	stdout, stderr, code := runFleet(t, "db", "migrate", "--db", path)
	all := regexp.MustCompile(`^applied 0001_init, 0002_immutable_results, 0003_validity, 0004_run_uuid(, [0-9]{4}_[a-z_]+)*; schema ([0-9]+)\n$`)
	m := all.FindStringSubmatch(stdout)
	if code != 0 || m == nil || stderr != "" {
		t.Fatalf("fleet db migrate on a new file: exit %d, stdout %q, stderr %q; want %s", code, stdout, stderr, all)
	}
	schema := m[2]
	if stdout, _, code := runFleet(t, "db", "migrate", "--db", path); code != 0 || stdout != "up to date (schema "+schema+")\n" {
		t.Errorf("fleet db migrate again: exit %d, stdout %q; want up to date (schema %s)", code, stdout, schema)
	}

	old := goldenDBAt(t, b.newDSN(t))
	downgradeRunUUID(t, old)
	t.Setenv("FLEET_DB", old) // as a lab sets it
	if stdout, stderr, code := runFleet(t, "db", "migrate"); code != 0 || stdout != "applied 0004_run_uuid; schema "+schema+"\n" {
		t.Errorf("fleet db migrate on a database without 0004: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if uuids := runUUIDs(t, old); len(uuids) != 2 || uuids[0] == uuids[1] {
		t.Errorf("runs after migrating have UUIDs %q, want two distinct ones", uuids)
	}

	execSQL(t, path, `INSERT INTO schema_migrations (version, name, applied) VALUES (999, '0999_future.sql', 'x')`)
	before := contentOf(t, path)
	_, stderr, code = runFleet(t, "db", "migrate", "--db", path)
	if code != exitUsage || !strings.Contains(unfold(stderr), "written by a newer fleet (schema 999 > "+schema+")") {
		t.Errorf("fleet db migrate on a newer database: exit %d, stderr %q; want exit 2, written by a newer fleet", code, stderr)
	}
	if after := contentOf(t, path); after != before {
		t.Errorf("a refused migrate changed the database:\nbefore %s\nafter  %s", before, after)
	}
}

// downgradeRunUUID turns a database back into what a fleet without migration 0004 left.
func downgradeRunUUID(t *testing.T, path string) {
	t.Helper()
	for _, stmt := range []string{`DROP INDEX runs_uuid`, `ALTER TABLE runs DROP COLUMN uuid`,
		`DELETE FROM schema_migrations WHERE version = 4`} {
		execSQL(t, path, stmt)
	}
}

// runUUIDs lists the UUIDs of the runs in db, as fleet runs --format json prints them.
func runUUIDs(t *testing.T, db string) []string {
	t.Helper()
	stdout, stderr, code := runFleet(t, "runs", "--format", "json", "--db", db)
	if code != 0 {
		t.Fatalf("fleet runs: exit %d: %s", code, stderr)
	}
	var runs []struct{ UUID string }
	if err := json.Unmarshal([]byte(stdout), &runs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range runs {
		out = append(out, r.UUID)
	}
	return out
}

// showJSON is fleet show RUN --raw --format json without the run's id, which is each database's own.
func showJSON(t *testing.T, db, ref string) string {
	t.Helper()
	stdout, stderr, code := runFleet(t, "show", ref, "--raw", "--format", "json", "--db", db)
	if code != 0 {
		t.Fatalf("fleet show %s: exit %d: %s", ref, code, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	delete(v, "id")
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDBCopyLeavesRunningRunsOut: runs still running in SRC are left out and named, each with what its board
// leases say — one measuring now, one whose controller holds nothing (died); --include-running copies both.
func TestDBCopyLeavesRunningRunsOut(t *testing.T) {
	for _, b := range dbBackends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			src := b.newDSN(t)
			db, err := store.Open(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			live, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly"})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := live.AcquireLease(ctx, "am64x", time.Hour); err != nil || !ok {
				t.Fatalf("AcquireLease = %v, %v", ok, err)
			}
			dead, err := db.BeginRun(ctx, store.RunInfo{})
			if err != nil {
				t.Fatal(err)
			}
			must(t, dead.BoardStarted(ctx, "imx6q"))
			dst := filepath.Join(t.TempDir(), "copy.db")

			stdout, stderr, code := runFleet(t, "db", "copy", "--from", src, "--to", dst)
			want := fmt.Sprintf("copied 0 runs\nleft out 2 runs still running in %s: %d (measuring am64x now), %d (holds no "+
				"board's lease: its controller may have died); copy them when they end (--include-running copies them as "+
				"they are)\n", store.Redact(src), live.RunID(), dead.RunID())
			if code != 0 || stdout != want {
				t.Errorf("fleet db copy: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
			}
			stdout, _, code = runFleet(t, "db", "copy", "--from", src, "--to", dst, "--include-running")
			if code != 0 || stdout != "copied 2 runs (0 points)\n" {
				t.Errorf("fleet db copy --include-running: exit %d, stdout %q; want both runs copied", code, stdout)
			}
		})
	}
}
