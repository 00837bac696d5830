package store

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/protocol"
)

// variedPoints are points that use every column measurements has: flags, evidence, validity, failures,
// published ranges, extreme floats, and text PostgreSQL refuses as it is (NUL, bytes that are not UTF-8).
func variedPoints(n int) []protocol.Point {
	bg, steal := 3.5, 0.25
	swap := int64(7)
	var ps []protocol.Point
	for i := range n {
		p := pt([]string{"soft", "cpu", "afalg"}[i%3], fmt.Sprintf("alg-%d", i%17), 16<<(i%6), i/51, 1e5*float64(i+1))
		p.KeyBits, p.Curve, p.Threads = i%4*1024, []string{"", "P-256"}[i%2], 1+i%4
		p.Engine, p.Driver = []string{"", "devcrypto"}[i%2], []string{"", "cbc(aes-arm64)"}[i%2]
		p.OpsPerSec, p.WallEst, p.SysBusyPct, p.IRQDelta = float64(i)/3, 3.25, 1.5, int64(i*11)
		p.RawID, p.Line = i%5, i+1
		switch i % 7 {
		case 0:
			p.Flags = []string{"cpu-timed", "default-3s: openssl 1.0 has no -seconds"}
		case 1:
			p.Failed, p.Error = true, "engine fell back to software"
		case 2:
			p.Validity, p.ValidityReasons = protocol.ValiditySuspect, []string{"background 3.5 %", "governor ondemand"}
			p.Evidence = &protocol.Evidence{Cores: 4, OfflineCPUs: "2-3", BackgroundPct: &bg, StealPct: &steal,
				SwapIn: &swap, CoreBusyPct: []float64{99.5, 1}, Unknown: []string{"no thermal zones"}}
		case 3:
			p.PublishedMin, p.PublishedMax = p.BytesPerSec*0.97, p.BytesPerSec*1.02
		case 4:
			p.Error = "latin-1 \xe9t\xe9 and a NUL \x00 here"
			p.Failed = true
		case 5:
			p.BytesPerSec, p.Count = math.MaxFloat64/4, math.SmallestNonzeroFloat64
		case 6:
			p.Validity = protocol.ValidityOK
		}
		ps = append(ps, p)
	}
	return ps
}

// writeVaried stores the varied points as one run of two boards streaming in batches, with a fixed UUID so
// that every database holds the same run.
func writeVaried(t *testing.T, db *DB, ps []protocol.Point) int64 {
	t.Helper()
	ctx := context.Background()
	db.BatchSize = 37 // batches that do not divide the points, and one COPY well over 1 row
	w, err := db.BeginRun(ctx, RunInfo{Label: "nightly", ToolVersion: "test", Host: "h",
		UUID: "0b5a1d3e-7c2f-4e8a-9d61-2f4c8e9a0b17"})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if err := w.Point(ctx, []string{"a", "b"}[i%2], p); err != nil {
			t.Fatalf("Point %d: %v", i, err)
		}
	}
	for _, b := range []string{"a", "b"} {
		if err := w.BoardFinished(ctx, b, protocol.StatusOK, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	return w.RunID()
}

// storedPoints reads back what a database holds of a run, without the ids and times each database gives itself.
func storedPoints(t *testing.T, db *DB, id int64) (all, latest []Measurement) {
	t.Helper()
	ctx := context.Background()
	ms, err := db.Measurements(ctx, Filter{RunID: id})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := db.LatestPoints(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	clean := func(ms []Measurement) []Measurement {
		for i := range ms {
			ms[i].ID, ms[i].RunID = 0, 0
		}
		return ms
	}
	return clean(ms), clean(ls)
}

// TestCopyStoresWhatInsertStores: PostgreSQL's COPY path stores exactly what its INSERT path stores, and both
// what SQLite stores, every column of every point, and the same latest points.
func TestCopyStoresWhatInsertStores(t *testing.T) {
	ps := variedPoints(300)
	viaCopy := openAt(t, pgtest.NewDatabase(t))
	viaInsert := openAt(t, pgtest.NewDatabase(t))
	viaInsert.db.noCopy = true
	sqlite := openTest(t)

	tx, err := viaCopy.db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !tx.copies() {
		t.Fatal("a PostgreSQL transaction does not store points with COPY")
	}
	tx.Rollback()

	var all, latest [3][]Measurement
	for i, db := range []*DB{viaCopy, viaInsert, sqlite} {
		all[i], latest[i] = storedPoints(t, db, writeVaried(t, db, ps))
	}
	// SQLite keeps text as it came; PostgreSQL, either path, stores NUL and bytes that are not UTF-8 as U+FFFD
	// (conn.args): the one difference between the backends, by design
	pg := &conn{dialect: dialectPostgres}
	for _, ms := range [][]Measurement{all[2], latest[2]} {
		for i := range ms {
			ms[i].Error = pg.args([]any{ms[i].Error})[0].(string)
		}
	}
	if len(all[0]) != len(ps) || len(latest[0]) == 0 {
		t.Fatalf("COPY stored %d points (%d latest), want %d", len(all[0]), len(latest[0]), len(ps))
	}
	for i, name := range []string{"PostgreSQL INSERT", "SQLite"} {
		if !reflect.DeepEqual(all[0], all[i+1]) {
			t.Errorf("PostgreSQL COPY and %s store different points:\n%s", name, firstDifference(all[0], all[i+1]))
		}
		if !reflect.DeepEqual(latest[0], latest[i+1]) {
			t.Errorf("PostgreSQL COPY and %s give different latest points:\n%s", name,
				firstDifference(latest[0], latest[i+1]))
		}
	}
	if e := all[0][4].Error; !strings.Contains(e, "\uFFFD") || strings.ContainsRune(e, 0) {
		t.Errorf("COPY stored the error %q; want NUL and invalid UTF-8 as U+FFFD, as the INSERT stores them", e)
	}
}

func firstDifference(a, b []Measurement) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d points against %d", len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("point %d:\n%+v\n%+v", i, a[i], b[i])
		}
	}
	return ""
}

// poisonTrigger makes the database refuse a point whose algorithm is "poison", the way a constraint or a full
// disk refuses a row in the middle of a batch.
var poisonTrigger = map[string][]string{
	"sqlite": {`CREATE TRIGGER poison BEFORE INSERT ON measurements WHEN NEW.algorithm = 'poison'
		BEGIN SELECT RAISE(ABORT, 'poisoned point'); END`},
	"postgres": {`CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.algorithm = 'poison' THEN RAISE EXCEPTION 'poisoned point'; END IF; RETURN NEW; END $$`,
		`CREATE TRIGGER poison BEFORE INSERT ON measurements FOR EACH ROW EXECUTE FUNCTION poison()`},
}

// TestFailureMidBatchStoresNothingOfIt: a row refused in the middle of a batch (the COPY on PostgreSQL, the
// INSERT on SQLite) leaves none of the batch: not its earlier points, not the latest pointers of its series;
// the batches committed before stay, and the writer refuses further work.
func TestFailureMidBatchStoresNothingOfIt(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		for _, q := range poisonTrigger[b.name] {
			if _, err := db.db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		db.BatchSize = 120 // more than one INSERT of SQLite's (maxRowsPerInsert) per batch
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		var failed error
		for i := 0; i < 240 && failed == nil; i++ {
			alg := fmt.Sprintf("first-%d", i)
			switch {
			case i == 200:
				alg = "poison"
			case i >= 120:
				alg = fmt.Sprintf("second-%d", i)
			}
			failed = w.Point(ctx, "a", pt("soft", alg, 16, 0, 1e6))
		}
		if failed == nil || !strings.Contains(failed.Error(), "poisoned point") {
			t.Fatalf("the batch with the poisoned point: err %v, want the database's refusal", failed)
		}
		if n := countPoints(t, db, w.RunID()); n != 120 {
			t.Errorf("%d points stored, want the 120 of the first batch and none of the failed one", n)
		}
		ls, err := db.LatestPoints(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ls {
			if !strings.HasPrefix(m.Algorithm, "first-") {
				t.Errorf("latest points include %s of the failed batch", m.Algorithm)
			}
		}
		if len(ls) != 120 {
			t.Errorf("%d latest points, want 120", len(ls))
		}
		if err := w.Point(ctx, "a", pt("soft", "after", 16, 0, 1e6)); err == nil {
			t.Error("the writer took a point after a failed batch")
		}
	})
}

// TestCopyRetriedAfterSerializationFailure: a COPY that PostgreSQL aborts for a concurrent transaction's sake
// (SQLSTATE 40001) runs again with its transaction, and the batch is stored once.
func TestCopyRetriedAfterSerializationFailure(t *testing.T) {
	ctx := context.Background()
	db := openAt(t, pgtest.NewDatabase(t))
	for _, q := range []string{`CREATE SEQUENCE abort_once`,
		// nextval is not rolled back with the transaction: only the first COPY's first row fails
		`CREATE FUNCTION abort_once() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF nextval('abort_once') = 1 THEN
			RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001'; END IF; RETURN NEW; END $$`,
		`CREATE TRIGGER abort_once BEFORE INSERT ON measurements FOR EACH ROW EXECUTE FUNCTION abort_once()`,
	} {
		if _, err := db.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.BatchSize = 25
	w, err := db.BeginRun(ctx, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := w.Point(ctx, "a", pt("soft", "aes-128-cbc", 16, i, 1e6)); err != nil {
			t.Fatalf("Point %d: %v", i, err)
		}
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	if n := countPoints(t, db, w.RunID()); n != 50 {
		t.Errorf("%d points stored, want 50: the retried batch once", n)
	}
	var calls int64
	if err := db.db.QueryRowContext(ctx, `SELECT last_value FROM abort_once`).Scan(&calls); err != nil {
		t.Fatal(err)
	}
	if calls != 51 {
		t.Errorf("the trigger ran %d times, want 51 (the aborted row, then 50)", calls)
	}
}
