package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
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

// nightlyPoints stores one nightly run of board "a" with a point per verdict (the board run's verdict the worst
// of them, as the controller records it) and returns its id.
func nightlyPoints(t *testing.T, db *DB, label string, verdicts ...string) int64 {
	t.Helper()
	ctx := context.Background()
	w, err := db.BeginRun(ctx, RunInfo{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	worst := ""
	for i, v := range verdicts {
		p := pt("cpu", "aes-128-cbc", 16<<i, 0, 1e8)
		p.Validity = v
		if v == "invalid" {
			p.ValidityReasons, worst = []string{"background CPU 38 % (limit 8 %)"}, v
		} else if worst == "" {
			worst = v
		}
		if err := w.Point(ctx, "a", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.BoardValidity(ctx, "a", worst, []string{fmt.Sprintf("%d points", len(verdicts))}); err != nil {
		t.Fatal(err)
	}
	if err := w.BoardFinished(ctx, "a", protocol.StatusOK, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		t.Fatal(err)
	}
	return w.RunID()
}

// TestBaselineBusyLab: on a busy lab every nightly has an invalid point or two, so every board run is judged
// invalid (the worst of its points); the runs still have valid points, and a labelled baseline uses them
// instead of answering "no run labelled nightly with valid points".
func TestBaselineBusyLab(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		ctx := context.Background()
		var window []int64
		for range 4 {
			window = append(window, nightlyPoints(t, db, "nightly", "ok", "invalid", "ok"))
		}
		judged := nightlyPoints(t, db, "nightly", "ok", "invalid", "ok")
		bl, err := db.ResolveBaselineWindow(ctx, "nightly", 3, map[string]int64{"a": judged})
		if err != nil {
			t.Fatalf("ResolveBaselineWindow: %v", err)
		}
		if got, want := fmt.Sprint(bl.Window["a"]), fmt.Sprint(window[1:]); got != want || bl.Runs["a"] != window[3] || bl.Label != "nightly" {
			t.Errorf("window %s (newest %d, label %q), want %s", got, bl.Runs["a"], bl.Label, want)
		}
		in, err := db.ReadRegressionWindow(ctx, "nightly", 10, []Measurement{{RunID: judged, Board: "a"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(in.Base), 4*3; got != want {
			t.Errorf("baseline points of a 10-run window over 4 runs = %d, want %d", got, want)
		}
		if _, err := db.ResolveBaselineWindow(ctx, "nightly", 0, map[string]int64{"a": judged}); err == nil {
			t.Error("a window of 0 runs was accepted")
		}
	})
}

// TestBaselineAllInvalid: when every run the label matched was invalid, the error says so (ErrBaselineInvalid,
// beside ErrNotFound), so regress can exit "not judged" rather than "usage error"; a label that matches
// nothing is ErrNotFound alone.
func TestBaselineAllInvalid(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		db := b.open(t)
		ctx := context.Background()
		nightlyPoints(t, db, "busy", "invalid", "invalid")
		nightlyPoints(t, db, "busy", "invalid", "invalid")
		judged := nightlyPoints(t, db, "busy", "ok", "ok")
		bl, err := db.ResolveBaselineWindow(ctx, "busy", 10, map[string]int64{"a": judged})
		if !errors.Is(err, ErrBaselineInvalid) || !errors.Is(err, ErrNotFound) {
			t.Errorf("all-invalid baseline: %v, want ErrBaselineInvalid and ErrNotFound", err)
		}
		if len(bl.Skipped["a"]) != 2 || !strings.Contains(bl.Missing["a"], "2 run(s) of it passed over as invalid") {
			t.Errorf("skipped %q, missing %q", bl.Skipped["a"], bl.Missing["a"])
		}
		_, err = db.ResolveBaselineWindow(ctx, "weekly", 10, map[string]int64{"a": judged})
		if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrBaselineInvalid) {
			t.Errorf("unknown label: %v, want ErrNotFound only", err)
		}
	})
}
