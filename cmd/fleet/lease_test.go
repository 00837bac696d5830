package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// holdLease records a run labelled nightly from host ci-3 in the database at path, holding board for an hour.
func holdLease(t *testing.T, path, board string) int64 {
	t.Helper()
	return holdLeaseOn(t, path, board, "ci-3")
}

// holdLeaseOn is holdLease from host: the board local is leased per host.
func holdLeaseOn(t *testing.T, path, board, host string) int64 {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Host: host})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := w.AcquireLease(ctx, board, time.Hour); err != nil || !ok {
		t.Fatalf("AcquireLease(%s) = %v, %v", board, ok, err)
	}
	return w.RunID()
}

// TestLeaseFlagsRefused: a negative, unparsable or too long --lease-wait, and a --lease-ttl out of range, are
// usage errors that name the flag, before anything is measured.
func TestLeaseFlagsRefused(t *testing.T) {
	for _, tc := range []struct{ flag, value string }{
		{"--lease-wait", "-1s"},
		{"--lease-wait", "soon"},
		{"--lease-wait", "30"},
		{"--lease-wait", "200h"},
		{"--lease-ttl", "0s"},
		{"--lease-ttl", "2h"},
	} {
		t.Run(tc.flag+"="+tc.value, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "x.db")
			_, stderr, code := runFleet(t, "run", "--boards", "local", "--db", db, tc.flag, tc.value)
			if code != exitUsage || !strings.Contains(stderr, tc.flag) {
				t.Errorf("exit %d, stderr %q; want %d naming %s", code, stderr, exitUsage, tc.flag)
			}
		})
	}
}

// TestRunLeasedBoardFails: a board another run holds is waited for, with a line naming the holder, up to
// --lease-wait; then it fails with exit 3 and a cause naming the holder, and is stored as failed. The board is
// local, held by another run on this host (local is leased per host).
func TestRunLeasedBoardFails(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		backend dbBackend
		wait    string
	}{
		{dbBackends[0], "0s"}, {dbBackends[0], "1s"}, {dbBackends[1], "0s"}, {dbBackends[1], "1s"},
	} {
		wait := tc.wait
		t.Run(tc.backend.name+"/"+wait, func(t *testing.T) {
			path := tc.backend.newDSN(t)
			holder := holdLeaseOn(t, path, "local", host)
			start := time.Now()
			_, stderr, code := runFleet(t, "run", "--boards", "local", "--db", path, "--lease-wait", wait)
			if code != exitBoardFailed {
				t.Fatalf("exit %d, want %d\n%s", code, exitBoardFailed, stderr)
			}
			cause := regexp.MustCompile(`cause: local is leased by run ` + itoa(holder) + ` \(nightly, host ` + regexp.QuoteMeta(host) + ` pid \d+, since (\d{4}-\d\d-\d\d )?[0-9:]+\), expires (\d{4}-\d\d-\d\d )?[0-9:]+; `)
			if !cause.MatchString(unfold(stderr)) {
				t.Errorf("stderr does not name the holder as the cause:\n%s", stderr)
			}
			waiting := strings.Contains(stderr, "local        waiting for run "+itoa(holder)+" (nightly, host "+host+", since ")
			if wait == "1s" && (!waiting || time.Since(start) < time.Second) {
				t.Errorf("with --lease-wait 1s: waited %v, waiting line shown %v\n%s", time.Since(start), waiting, stderr)
			}
			if wait == "0s" && waiting {
				t.Errorf("with --lease-wait 0s a waiting line:\n%s", stderr)
			}
			db, err := store.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			brs, err := db.BoardRuns(context.Background(), holder+1)
			if err != nil || len(brs) != 1 || brs[0].Status != protocol.StatusFailed || !strings.Contains(brs[0].Error, "leased by run") {
				t.Errorf("stored board runs of the refused run = %+v, %v; want local failed, leased by run %d", brs, err, holder)
			}
		})
	}
}

// TestBoardsListShowsLeases: fleet boards list names each board's lease holder, in text and JSON.
func TestBoardsListShowsLeases(t *testing.T) {
	for _, be := range dbBackends {
		t.Run(be.name, func(t *testing.T) { testBoardsListShowsLeases(t, be.newDSN(t)) })
	}
}

func testBoardsListShowsLeases(t *testing.T, path string) {
	dir := t.TempDir()
	inv := filepath.Join(dir, "boards.toml")
	if err := os.WriteFile(inv, []byte("[boards.lab1]\nhost = \"10.0.0.11\"\n\n[boards.lab2]\nhost = \"10.0.0.12\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder := holdLease(t, path, "lab2")
	stdout, stderr, code := runFleet(t, "boards", "list", "--inventory", inv, "--db", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if l := boardRow(stdout, "lab2"); !strings.Contains(l, "run "+itoa(holder)) {
		t.Errorf("lab2's row %q does not name run %d\n%s", l, holder, stdout)
	}
	if l := boardRow(stdout, "lab1"); strings.Contains(l, "run ") {
		t.Errorf("lab1 is free, but its row says %q", l)
	}
	if !regexp.MustCompile(`(?m)^lab2\s+` + itoa(holder) + `\s+nightly\s+ci-3\s+\d+\s+\d{4}-`).MatchString(stdout) {
		t.Errorf("no leases row for lab2 with run, label, host, pid and since:\n%s", stdout)
	}
	stdout, stderr, code = runFleet(t, "boards", "list", "--inventory", inv, "--db", path, "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var got struct {
		Boards []struct {
			Name  string `json:"name"`
			Lease *struct {
				Run     int64  `json:"run"`
				Label   string `json:"label"`
				Host    string `json:"host"`
				Expired bool   `json:"expired"`
			} `json:"lease"`
		} `json:"boards"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("boards list --format json: %v\n%s", err, stdout)
	}
	for _, b := range got.Boards {
		switch l := b.Lease; b.Name {
		case "lab2":
			if l == nil || l.Run != holder || l.Label != "nightly" || l.Host != "ci-3" || l.Expired {
				t.Errorf("lab2's lease in JSON = %+v, want run %d, nightly, ci-3, not expired", l, holder)
			}
		default:
			if l != nil {
				t.Errorf("%s is free, but JSON shows lease %+v", b.Name, l)
			}
		}
	}
	if _, stderr, code := runFleet(t, "boards", "list", "--inventory", inv, "--db", path, "--format", "csv"); code != exitUsage {
		t.Errorf("--format csv: exit %d, want %d: %s", code, exitUsage, stderr)
	}
}

// boardRow is the line of out that starts with board.
func boardRow(out, board string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == board {
			return l
		}
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestLocalLeasePerHost: the board local is each controller's own host. A run on another host (ci-3) holding
// its local board does not keep this host's run of local waiting: it measures at once, on SQLite and on
// PostgreSQL; boards list shows local free here and ci-3's lease as local@ci-3, then this host's own lease on
// local's row once a run here holds it.
func TestLocalLeasePerHost(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent and measures")
	}
	host, err := os.Hostname()
	if err != nil || host == "ci-3" {
		t.Skipf("host name %q, %v: the test needs one other than ci-3", host, err)
	}
	for _, be := range dbBackends {
		t.Run(be.name, func(t *testing.T) {
			path := be.newDSN(t)
			other := holdLeaseOn(t, path, "local", "ci-3")
			_, stderr, code := runFleet(t, "run", "--boards", "local", "--db", path, "--lease-wait", "0s",
				"--seconds", "1", "--modes", "soft", "--algorithms", "sha256", "--sizes", "16")
			if code != 0 || strings.Contains(stderr, "leased by") {
				t.Fatalf("exit %d: this host's local waited for ci-3's (run %d)?\n%s", code, other, stderr)
			}
			stdout, stderr, code := runFleet(t, "boards", "list", "--db", path)
			if code != 0 {
				t.Fatalf("boards list: exit %d: %s", code, stderr)
			}
			if l := boardRow(stdout, "local"); strings.Contains(l, "run ") {
				t.Errorf("local is free on this host, but its row says %q\n%s", l, stdout)
			}
			if !regexp.MustCompile(`(?m)^local@ci-3\s+` + itoa(other) + `\s+nightly\s+ci-3\s`).MatchString(stdout) {
				t.Errorf("no leases row local@ci-3 of run %d:\n%s", other, stdout)
			}
			mine := holdLeaseOn(t, path, "local", host)
			stdout, _, _ = runFleet(t, "boards", "list", "--db", path)
			if l := boardRow(stdout, "local"); !strings.Contains(l, "run "+itoa(mine)) {
				t.Errorf("local's row %q does not name this host's run %d\n%s", l, mine, stdout)
			}
		})
	}
}
