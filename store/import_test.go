package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// countRows counts the rows of table, read as another process would.
func countRows(t *testing.T, db *DB, table string) int {
	t.Helper()
	var n int
	if err := db.db.QueryRowContext(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// emptyAfterImport fails unless the database holds no run and no result of any kind.
func emptyAfterImport(t *testing.T, db *DB) {
	t.Helper()
	for _, table := range []string{"runs", "board_runs", "measurements", "skips", "raw_outputs", "latest"} {
		if n := countRows(t, db, table); n != 0 {
			t.Errorf("%s: %d rows after a failed import, want none", table, n)
		}
	}
}

func TestImportTxCommits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		dsn := b.newDSN(t)
		db := openAt(t, dsn)
		tx, err := db.BeginImport(ctx, RunInfo{Label: "wiki"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for run := range 2 {
			if err := tx.StartRun(ctx, "am335x", "imported from x.txt"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Raw(ctx, rawOf(1, "text")); err != nil {
				t.Fatal(err)
			}
			if err := tx.Skip(ctx, protocol.Skip{Mode: "afalg", Reason: "line 3: refused"}); err != nil {
				t.Fatal(err)
			}
			for i := range 120 { // more than one insert batch
				if err := tx.Point(ctx, pt("cpu", "aes-128-cbc", 16<<(i%3), i/3, float64(run*1000+i+1))); err != nil {
					t.Fatal(err)
				}
			}
			if run == 1 {
				if err := tx.Facts(ctx, protocol.Facts{OpenSSLEnv: map[string]string{"OPENSSL_armcap": "0x3d"}}); err != nil {
					t.Fatal(err)
				}
			}
			id, err := tx.EndRun(ctx, protocol.StatusOK, "")
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if n := countRows(t, openAt(t, dsn), "runs"); n != 0 {
			t.Errorf("%d runs visible before Commit, want none", n)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		runs, err := db.Runs(ctx, RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 {
			t.Fatalf("%d runs, want 2", len(runs))
		}
		for _, r := range runs {
			if r.Status != protocol.StatusImported || r.Points != 120 || r.Label != "wiki" || r.Source != "imported from x.txt" {
				t.Errorf("run %+v: want imported, 120 points, label wiki, its source", r)
			}
		}
		latest, err := db.LatestPoints(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range latest {
			if m.RunID != ids[1] {
				t.Fatalf("latest point from run %d, want the second run %d", m.RunID, ids[1])
			}
		}
		if err := tx.Point(ctx, pt("cpu", "aes-128-cbc", 16, 0, 1)); err == nil {
			t.Error("Point after Commit succeeded")
		}
		// the environment the second capture showed is its board run's facts; the first showed none
		for i, want := range []string{"", "0x3d"} {
			brs, err := db.BoardRuns(ctx, ids[i])
			if err != nil || len(brs) != 1 {
				t.Fatalf("BoardRuns(%d) = %v, %v", ids[i], brs, err)
			}
			got := ""
			if brs[0].Facts != nil {
				got = brs[0].Facts.OpenSSLEnv["OPENSSL_armcap"]
			}
			if got != want || (want == "") != (brs[0].Facts == nil) {
				t.Errorf("run %d facts %+v, want OPENSSL_armcap %q", ids[i], brs[0].Facts, want)
			}
		}
	})
}

// TestImportTxCancelledStoresNothing: Ctrl-C (a cancelled context) in the middle of an import rolls it back.
func TestImportTxCancelledStoresNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx, cancel := context.WithCancel(context.Background())
		dsn := b.newDSN(t)
		db := openAt(t, dsn)
		tx, err := db.BeginImport(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.StartRun(ctx, "a", "imported"); err != nil {
			t.Fatal(err)
		}
		for i := range 100 {
			if err := tx.Point(ctx, pt("cpu", "sha256", 64, i, 1e6)); err != nil {
				t.Fatal(err)
			}
		}
		cancel()
		var werr error
		for i := 0; werr == nil && i < 1000; i++ {
			werr = tx.Point(ctx, pt("cpu", "sha256", 64, 100+i, 1e6))
		}
		if !errors.Is(werr, context.Canceled) {
			t.Errorf("Point after cancel = %v, want context.Canceled", werr)
		}
		if err := tx.Commit(); err == nil {
			t.Error("Commit after cancel succeeded")
		}
		emptyAfterImport(t, openAt(t, dsn))
	})
}

// TestImportTxDiskFullStoresNothing: a disk that fills during an import leaves no run behind — not an
// "incomplete" one with all its points that results and regress would take as latest — and the import, run
// again with space, is stored exactly once. SQLite only (a full file system under the file).
func TestImportTxDiskFullStoresNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	ctx := context.Background()
	dir := mountTmpfs(t, "2m")
	path := filepath.Join(dir, "fleet.db")
	seed(t, path) // one earlier run, which must survive
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fill.Write(make([]byte, 1<<20)); err != nil { // leave well under a megabyte free
		t.Fatal(err)
	}
	fill.Close()
	importAll := func(db *DB) error {
		tx, err := db.BeginImport(ctx, RunInfo{Label: "big"})
		if err != nil {
			return err
		}
		fail := func(err error) error { tx.Rollback(); return err }
		if err := tx.StartRun(ctx, "a", "imported from big.txt"); err != nil {
			return fail(err)
		}
		big := strings.Repeat("openssl speed output ", 2000) // 40 kB per raw output
		for i := range 40 {
			if err := tx.Raw(ctx, rawOf(i+1, big)); err != nil {
				return fail(err)
			}
		}
		for i := range 200 {
			if err := tx.Point(ctx, pt("cpu", "aes-128-cbc", 16, i, float64(i+1))); err != nil {
				return fail(err)
			}
		}
		if _, err := tx.EndRun(ctx, protocol.StatusOK, ""); err != nil {
			return fail(err)
		}
		return tx.Commit()
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	err = importAll(db)
	db.Close()
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), path) {
		t.Fatalf("import onto a full disk = %v, want ErrFull naming %s", err, path)
	}
	t.Logf("disk full: %v", err)
	check := openAt(t, path)
	var ok string
	if err := check.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check = %q, %v", ok, err)
	}
	runs, err := check.Runs(ctx, RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Label != "seed" {
		t.Fatalf("after the failed import: runs %+v, want only the seeded one", runs)
	}
	if n := countRows(t, check, "raw_outputs"); n != 0 {
		t.Errorf("%d raw outputs left behind", n)
	}

	os.Remove(filepath.Join(dir, "fill"))
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := importAll(db); err != nil {
		t.Fatalf("retry with space: %v", err)
	}
	runs, err = db.Runs(ctx, RunFilter{Label: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Points != 200 {
		t.Errorf("after the retry: %+v, want one run of 200 points", runs)
	}
}
