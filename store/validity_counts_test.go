package store

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestJudgedCounts: Runs and BoardRuns count each run's and board's points by verdict, with the causes.
func TestJudgedCounts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		ctx := context.Background()
		nightly(t, db, "ok")
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.BoardFacts(ctx, "a", protocol.Facts{Kernel: "6.1", OpenSSLEnv: map[string]string{"OPENSSL_ia32cap": "~0x200000000000000"}}))
		for i, v := range []struct {
			board, verdict, reason string
		}{
			{"a", "invalid", "background CPU 38 % (limit 8 %)"},
			{"a", "invalid", "background CPU 41 % (limit 8 %)"},
			{"a", "suspect", "thermal_zone0 at 85 °C, trip point 85 °C"},
			{"a", "ok", ""},
			{"b", "invalid", "throttled: 40 % of the time below 1500 MHz (limit 5 %)"},
			{"b", "", ""},
		} {
			p := pt("cpu", "aes-128-cbc", 16<<i, 0, 1e8)
			p.Validity = v.verdict
			if v.reason != "" {
				p.ValidityReasons = []string{v.reason}
			}
			must(t, w.Point(ctx, v.board, p))
		}
		for _, board := range []string{"a", "b"} {
			must(t, w.BoardFinished(ctx, board, protocol.StatusOK, ""))
		}
		must(t, w.Finish(ctx, protocol.StatusOK))

		runs, err := db.Runs(ctx, RunFilter{})
		if err != nil || len(runs) != 2 {
			t.Fatalf("Runs = %v, %v", runs, err)
		}
		want := Judged{OK: 1, Invalid: 3, Suspect: 1, InvalidCauses: []string{"background CPU", "throttled"}, SuspectCauses: []string{"temperature"}}
		if !reflect.DeepEqual(runs[0].Judged, want) {
			t.Errorf("run %d judged %+v, want %+v", runs[0].ID, runs[0].Judged, want)
		}
		if got := runs[1].Judged; !reflect.DeepEqual(got, Judged{OK: 1}) {
			t.Errorf("run %d judged %+v, want one ok point", runs[1].ID, got)
		}
		brs, err := db.BoardRuns(ctx, w.RunID())
		if err != nil || len(brs) != 2 {
			t.Fatalf("BoardRuns = %v, %v", brs, err)
		}
		if got, want := brs[1].Judged, (Judged{Invalid: 1, InvalidCauses: []string{"throttled"}}); !reflect.DeepEqual(got, want) {
			t.Errorf("board b judged %+v, want %+v", got, want)
		}
		if got := brs[0].Judged; got.Invalid != 2 || got.Suspect != 1 || got.OK != 1 {
			t.Errorf("board a judged %+v", got)
		}
		// nightly stored no facts: board a's previous run with facts is none, b has never run before
		if brs[0].Previous != nil || brs[1].Previous != nil {
			t.Errorf("previous facts %+v %+v, want none", brs[0].Previous, brs[1].Previous)
		}
		third := nightly(t, db, "ok")
		brs, err = db.BoardRuns(ctx, third)
		if err != nil || len(brs) != 1 {
			t.Fatalf("BoardRuns = %v, %v", brs, err)
		}
		if p := brs[0].Previous; p == nil || p.RunID != w.RunID() || p.Facts.OpenSSLEnv["OPENSSL_ia32cap"] != "~0x200000000000000" {
			t.Errorf("previous of run %d = %+v, want run %d's facts", third, p, w.RunID())
		}
	})
}

// TestPointCountsMatchMeasurements: the counts the writer keeps per board run, verdict and reasons are what
// grouping the points themselves gives, across batches and boards; and the migration's backfill of an older
// database gives the same rows, in the same order of first appearance.
func TestPointCountsMatchMeasurements(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		db.BatchSize = 7 // several transactions per board, so counts are added to
		ctx := context.Background()
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		reasons := [][]string{nil, {"background CPU 38 % (limit 8 %)"}, {"a", "b"}, nil}
		verdicts := []string{"ok", "invalid", "suspect", ""}
		for i := range 100 {
			p := pt("cpu", "aes-128-cbc", 16, i, 1e8)
			p.Validity = verdicts[(i*7)%4]
			p.ValidityReasons = reasons[(i*7)%4]
			p.Failed = i%5 == 0
			must(t, w.Point(ctx, []string{"a", "b", "c"}[i%3], p))
		}
		must(t, w.Finish(ctx, protocol.StatusOK))

		const grouped = `SELECT run_id, board, validity, coalesce(validity_reasons, ''), failed, count(*) FROM measurements
			GROUP BY run_id, board, validity, coalesce(validity_reasons, ''), failed ORDER BY min(id)`
		const kept = `SELECT run_id, board, validity, validity_reasons, failed, points FROM point_counts ORDER BY id`
		want := queryStrings(t, db, grouped)
		if len(want) != 24 {
			t.Fatalf("grouped points: %d rows, want 24 (3 boards × 4 verdicts × failed or not)", len(want))
		}
		if got := queryStrings(t, db, kept); !reflect.DeepEqual(got, want) {
			t.Errorf("point_counts\n%v\nwant\n%v", got, want)
		}
		runs, err := db.Runs(ctx, RunFilter{})
		if err != nil || len(runs) != 1 || runs[0].Points != 100 {
			t.Fatalf("Runs = %+v, %v; want one run of 100 points", runs, err)
		}

		// An older database: no counts until the migration fills them from its points.
		if _, err := db.db.ExecContext(ctx, `DELETE FROM point_counts`); err != nil {
			t.Fatal(err)
		}
		ms, err := migrations(db.db.dialect)
		if err != nil {
			t.Fatal(err)
		}
		var backfill string
		for _, m := range ms {
			if strings.HasSuffix(m.name, "_point_counts.sql") {
				_, backfill, _ = strings.Cut(m.sql, ");\n") // the INSERT after the CREATE TABLE
			}
		}
		if !strings.Contains(backfill, "INSERT INTO point_counts") {
			t.Fatalf("no backfill found in the point_counts migration: %q", backfill)
		}
		if _, err := db.db.ExecContext(ctx, backfill); err != nil {
			t.Fatal(err)
		}
		if got := queryStrings(t, db, kept); !reflect.DeepEqual(got, want) {
			t.Errorf("backfilled point_counts\n%v\nwant\n%v", got, want)
		}
	})
}

// queryStrings reads every row of query as one string of its columns.
func queryStrings(t *testing.T, db *DB, query string) []string {
	t.Helper()
	rows, err := db.db.QueryContext(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b, c, d, e, f string
		if err := rows.Scan(&a, &b, &c, &d, &e, &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join([]string{a, b, c, d, e, f}, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
