package store

import (
	"context"
	"reflect"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// nightly stores one nightly run of board "a" with one point of verdict v (and that as the board run's verdict
// when v is not empty), and returns its id.
func nightly(t *testing.T, db *DB, v string, reasons ...string) int64 {
	t.Helper()
	ctx := context.Background()
	w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
	if err != nil {
		t.Fatal(err)
	}
	p := pt("cpu", "aes-128-cbc", 16384, 0, 1e8)
	bg := 38.0
	p.Evidence = &protocol.Evidence{Cores: 2, BackgroundPct: &bg, Unknown: []string{"thermal: none"}}
	p.Validity, p.ValidityReasons = v, reasons
	if err := w.Point(ctx, "a", p); err != nil {
		t.Fatal(err)
	}
	if v != "" {
		if err := w.BoardValidity(ctx, "a", v, reasons); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.BoardFinished(ctx, "a", protocol.StatusOK, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	return w.RunID()
}

func TestValidityStored(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		ctx := context.Background()
		id := nightly(t, db, "invalid", "background CPU 38 % (limit 8 %)")
		ms, err := db.Measurements(ctx, Filter{RunID: id})
		if err != nil || len(ms) != 1 {
			t.Fatalf("Measurements = %d, %v", len(ms), err)
		}
		p := ms[0].Point
		if p.Validity != "invalid" || !reflect.DeepEqual(p.ValidityReasons, []string{"background CPU 38 % (limit 8 %)"}) {
			t.Errorf("stored verdict %q %q", p.Validity, p.ValidityReasons)
		}
		if p.Evidence == nil || p.Evidence.BackgroundPct == nil || *p.Evidence.BackgroundPct != 38 || p.Evidence.Cores != 2 ||
			len(p.Evidence.Unknown) != 1 {
			t.Errorf("stored evidence %+v", p.Evidence)
		}
		brs, err := db.BoardRuns(ctx, id)
		if err != nil || len(brs) != 1 {
			t.Fatalf("BoardRuns = %v, %v", brs, err)
		}
		if brs[0].Validity != "invalid" || len(brs[0].ValidityReasons) != 1 {
			t.Errorf("board run verdict %q %q", brs[0].Validity, brs[0].ValidityReasons)
		}
		if err := func() error {
			w, err := db.BeginRun(ctx, RunInfo{})
			if err != nil {
				return err
			}
			return w.BoardValidity(ctx, "a", "maybe", nil)
		}(); err == nil {
			t.Error("BoardValidity accepted verdict \"maybe\"")
		}
	})
}

// TestBaselineSkipsInvalidRuns guards the nightly baseline: the newest run of the label that was judged
// invalid is passed over for the one before it, and the resolution says so.
func TestBaselineSkipsInvalidRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		ctx := context.Background()
		old := nightly(t, db, "")    // before validity: not judged, usable
		good := nightly(t, db, "ok") // the baseline
		busy := nightly(t, db, "invalid", "1 of 1 points invalid (first: background CPU 38 % (limit 8 %))")
		now := nightly(t, db, "suspect", "mean background CPU 3 %")
		bl, err := db.ResolveBaselines(ctx, "nightly", map[string]int64{"a": now})
		if err != nil {
			t.Fatal(err)
		}
		if bl.Runs["a"] != good {
			t.Errorf("baseline of a = run %d, want %d (run %d is invalid, %d older)", bl.Runs["a"], good, busy, old)
		}
		want := []string{"run 3: invalid (1 of 1 points invalid (first: background CPU 38 % (limit 8 %)))"}
		if !reflect.DeepEqual(bl.Skipped["a"], want) {
			t.Errorf("skipped = %q, want %q", bl.Skipped["a"], want)
		}
		// a suspect run is still a baseline
		bl, err = db.ResolveBaselines(ctx, "latest", map[string]int64{"a": busy})
		if err != nil || bl.Runs["a"] != now {
			t.Errorf("latest for run %d = %v, %v; want the suspect run %d", busy, bl.Runs, err, now)
		}
	})
}

func TestHistoryLeavesOutInvalidPoints(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		nightly(t, db, "ok")
		nightly(t, db, "invalid", "busy")
		nightly(t, db, "suspect", "a little busy")
		h, err := db.SeriesHistories(context.Background(), HistoryFilter{})
		if err != nil || len(h.Series) != 1 {
			t.Fatalf("SeriesHistories = %v, %v", h, err)
		}
		var values, invalid []int
		for _, n := range h.Series[0].Nights {
			values, invalid = append(values, len(n.Values)), append(invalid, n.Invalid)
		}
		if !reflect.DeepEqual(values, []int{1, 0, 1}) || !reflect.DeepEqual(invalid, []int{0, 1, 0}) {
			t.Errorf("values per night %v, invalid %v; want [1 0 1] and [0 1 0]", values, invalid)
		}
	})
}
