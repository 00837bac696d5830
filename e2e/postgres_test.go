package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// capture is a real `openssl speed` output from the parser's corpus, imported by the same-output test.
const capture = "../opensslspeed/testdata/captures/S00_am335x-1.0.0d-sw-and-cryptodev-time-v.txt"

// TestSameOutputSQLiteAndPostgres: the same session — two runs over the three sshd boards, an import of a capture
// between them, then every query command — gives the same output, byte for byte, with a SQLite file and with a
// PostgreSQL database. The boards run the well-behaved fake agent (testdata/hostileagent without FLEET_HOSTILE:
// fixed figures), so that both sessions store the same points; only the times of runs (the wall clock) and the
// database's name differ, and are normalized.
func TestSameOutputSQLiteAndPostgres(t *testing.T) {
	_, lab := labWorld(t, sshlab.Options{})
	dsn := pgtest.NewDatabase(t)
	// One board at a time (-j 1): points are stored, and numbered, in the same order in both sessions.
	sweep := []string{"--boards", strings.Join(threeBoards, ","), "--agent", hostileBin, "--algorithms", "aes-128-cbc",
		"--sizes", "16,1024", "--modes", "soft,cpu", "--repeat", "3", "-j", "1"}
	captureFile, err := filepath.Abs(capture)
	if err != nil {
		t.Fatal(err)
	}
	report := func(w *world) string { return filepath.Join(w.dir, "report.html") }
	session := [][]string{
		append([]string{"run", "--label", "base"}, sweep...),
		{"import", "--board", "board1", "--label", "wiki", "--date", "2026-01-31", captureFile},
		append([]string{"run", "--label", "new"}, sweep...),
		{"runs"},
		{"runs", "--format", "json"},
		{"runs", "--label", "new", "--format", "csv"},
		{"results"},
		{"results", "--run", "1", "--format", "json"},
		{"results", "--run", "wiki", "--format", "csv"},
		{"history", "--board", "board1", "--algorithm", "aes-128-cbc", "--mode", "cpu", "--size", "1024"},
		{"history", "--board", "board1", "--algorithm", "aes-128-cbc", "--mode", "cpu", "--size", "16", "--format", "json"},
		{"show", "1"},
		{"show", "--raw", "2"},
		{"show", "--format", "json", "3"},
		{"results", "--board", "board1", "--format", "json"},
		{"compare"},
		{"compare", "--boards", "board1", "--format", "markdown"},
		{"regress", "--baseline", "base"},
		{"regress", "--baseline", "previous", "--format", "json"},
		{"changes"},
		{"changes", "--format", "json"},
		{"report", "-o", "REPORT"},
		{"boards", "list"},
		{"show", "99"},
	}
	outputs := map[string][]string{}
	for _, backend := range []string{"sqlite", "postgres"} {
		w := newWorld(t)
		w.writeInventory(lab.BoardsTOML())
		if backend == "postgres" {
			w.db = dsn
		}
		for _, args := range session {
			args = append([]string(nil), args...)
			for i, a := range args {
				if a == "REPORT" {
					args[i] = report(w)
				}
			}
			r := w.fleet(args...)
			if strings.Contains(r.stdout+r.stderr, pgtest.Password) {
				t.Errorf("%s: the password is shown\n%s", backend, r)
			}
			out := fmt.Sprintf("fleet %s\n--- exit %d\n--- stdout\n%s", strings.Join(args, " "), r.code, r.stdout)
			if args[0] != "run" { // a run's progress says how the agent was deployed: the boards remember the first session
				out += "\n--- stderr\n" + r.stderr
			}
			if args[0] == "report" {
				html, err := os.ReadFile(report(w))
				if err != nil {
					t.Fatalf("%s: %v\n%s", backend, err, r)
				}
				out += "\n--- report.html\n" + string(html)
			}
			outputs[backend] = append(outputs[backend], normalizeSession(out, w))
		}
	}
	if len(outputs["sqlite"]) != len(session) {
		t.Fatal("the SQLite session did not run every command")
	}
	for i, lite := range outputs["sqlite"] {
		if pg := outputs["postgres"][i]; pg != lite {
			t.Errorf("output differs between SQLite and PostgreSQL:\n=== sqlite\n%s\n=== postgres\n%s\n=== first difference at %q",
				lite, pg, firstDiff(lite, pg))
		}
	}
	if first := outputs["sqlite"][0]; !strings.Contains(first, "--- exit 0") {
		t.Errorf("the first run failed:\n%s", first)
	}
}

// timeRe matches the times a session prints: dates with times (RFC 3339, "2026-12-01 17:02", with seconds and
// fractions) and durations ("12.3s", "1m2s"), which are the wall clock's.
var (
	timeRe     = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?( UTC)?`)
	uuidRe     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	durationRe = regexp.MustCompile(`\b(\d+(\.\d+)?(ms|h|m|s))+\b`)
	foldRe     = regexp.MustCompile(`\n {10,}`)
)

// normalizeSession replaces what differs by nature between the two sessions: the wall-clock times of the runs
// (not of the import, which has its --date), the runs' UUIDs (random by design) and the database's name and
// temporary directory.
func normalizeSession(s string, w *world) string {
	// lines are folded at 100 columns, so a database name of another length folds them elsewhere: compare the
	// text unfolded (a continuation is indented under its value, 10 or more spaces)
	s = foldRe.ReplaceAllString(s, " ")
	s = uuidRe.ReplaceAllString(s, "UUID")
	s = strings.ReplaceAll(s, store.Redact(w.db), "DB")
	s = strings.ReplaceAll(s, w.dir, "DIR")
	s = timeRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "2026-01-31") {
			return m
		}
		return "TIME"
	})
	return durationRe.ReplaceAllString(s, "DURATION")
}

func firstDiff(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[max(0, i-80):min(len(a), i+80)]
		}
	}
	return "(one is a prefix of the other)"
}

// TestPostgresStoppedMidRun: the database server dies while boards are measuring. fleet says so, naming the
// server (without the password), exits 2, and what was committed before stays: whole batches only, the run
// left incomplete (running), no point without its board.
func TestPostgresStoppedMidRun(t *testing.T) {
	longCase(t)
	w, _ := labWorld(t, sshlab.Options{})
	srv, err := pgtest.Start(t.Context())
	if err != nil {
		pgtest.Skip(t, err)
	}
	t.Cleanup(func() { srv.Stop() })
	dsn, err := srv.CreateDatabase(t.Context(), "fleet")
	if err != nil {
		t.Fatal(err)
	}
	w.db = dsn
	p := w.start(append([]string{"run", "--boards", strings.Join(threeBoards, ","), "--agent", agentBin}, longSweep...)...)
	w.waitPoints(p, "board1", 1, 2*time.Minute)
	srv.Kill()
	r := p.wait(3 * time.Minute)
	if r.code != 2 && r.code != 3 {
		t.Errorf("run whose database died: want exit 2 or 3\n%s", r)
	}
	host := fmt.Sprintf("127.0.0.1:%d/fleet", srv.Port)
	if !strings.Contains(r.stderr, host) || strings.Contains(r.stdout+r.stderr, pgtest.Password) {
		t.Errorf("want an error naming %s and no password\n%s", host, r)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("fleet crashed\n%s", r)
	}
	if err := srv.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	db := w.openDB()
	runs := w.runs(db)
	if len(runs) != 1 || runs[0].Status != protocol.StatusRunning || runs[0].Points < 1 {
		t.Fatalf("runs = %+v, want one incomplete (running) run with the points committed before the crash", runs)
	}
	for _, m := range w.measurements(db, store.Filter{RunID: runs[0].ID}) {
		checkPoint(t, m)
	}
	brs := w.boardRuns(db, runs[0].ID)
	if len(brs) == 0 || brs["board1"].Points < 1 {
		t.Errorf("board runs %+v, want board1 with its committed points", brs)
	}
	t.Logf("%s", r)
}
