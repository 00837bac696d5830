package store

import (
	"context"
	"reflect"
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
