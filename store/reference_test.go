package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestReferenceIsNeverAMeasurement stores a measured run and a reference of the same board name, and checks
// that every query built for measurements — latest, history, change histories, baselines, "latest" — leaves the
// reference out, while Reference and results by label read it with its published range.
func TestReferenceIsNeverAMeasurement(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		for r := range 2 {
			if err := w.Point(ctx, "am64x", pt("cpu", "aes-128-cbc", 16384, r, 700e6)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.BoardFinished(ctx, "am64x", protocol.StatusOK, ""); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		measured := w.id
		ref := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
			BytesPerSec: 727.48e6, CPUPct: 99, PublishedMin: 720e6, PublishedMax: 730e6, Line: 9}
		id, err := db.ImportReference(ctx, RunInfo{Label: "ti-sdk", Source: "TI guide"}, []BoardPoint{{"am64x", ref}})
		if err != nil {
			t.Fatalf("ImportReference = %v", err)
		}

		run, pts, err := db.Reference(ctx, "ti-sdk")
		if err != nil || run.ID != id || run.Status != protocol.StatusReference || run.Source != "TI guide" || len(pts) != 1 {
			t.Fatalf("Reference = %+v, %d points, %v; want run %d, status reference, 1 point", run, len(pts), err, id)
		}
		if p := pts[0]; p.PublishedMin != 720e6 || p.PublishedMax != 730e6 || p.CPUPct != 99 || p.BytesPerSec != 727.48e6 {
			t.Errorf("reference point = %+v, want the published figure, range and CPU %%", p.Point)
		}
		if got, err := db.ResolveRun(ctx, "latest"); err != nil || got != measured {
			t.Errorf("ResolveRun(latest) = %d, %v; want the measured run %d", got, err, measured)
		}
		if got, err := db.ResolveRun(ctx, "ti-sdk"); err != nil || got != id {
			t.Errorf("ResolveRun(ti-sdk) = %d, %v; want the reference %d (results --run LABEL)", got, err, id)
		}
		onlyRun := func(what string, ms []Measurement, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s = %v", what, err)
			}
			for _, m := range ms {
				if m.RunID != measured {
					t.Errorf("%s has a point of run %d, want only the measured run %d", what, m.RunID, measured)
				}
			}
			if len(ms) != 2 {
				t.Errorf("%s has %d points, want the measured 2", what, len(ms))
			}
		}
		ms, err := db.Measurements(ctx, Filter{Latest: true})
		onlyRun("Measurements(latest)", ms, err)
		ms, err = db.LatestPoints(ctx, Filter{})
		onlyRun("LatestPoints", ms, err)
		key := SeriesKey{Board: "am64x", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16384}
		ms, err = db.History(ctx, key)
		onlyRun("History", ms, err)
		ms, _, err = db.HistoryPage(ctx, key, 0, 10)
		onlyRun("HistoryPage", ms, err)
		h, err := db.SeriesHistories(ctx, HistoryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := h.Runs[id]; ok {
			t.Errorf("SeriesHistories has the reference run %d among its runs", id)
		}
		bl, err := db.ResolveBaselines(ctx, "latest", map[string]int64{"am64x": measured})
		if !errors.Is(err, ErrNotFound) || bl.Runs["am64x"] == id {
			t.Errorf("ResolveBaselines(latest) = %v, %v; want no baseline (the reference is no measurement)", bl.Runs, err)
		}

		if _, err := db.ImportReference(ctx, RunInfo{Label: "nightly", Source: "x"}, []BoardPoint{{"am64x", ref}}); !errors.Is(err, ErrLabelMeasured) {
			t.Errorf("ImportReference under a measured label = %v, want ErrLabelMeasured", err)
		}
		if _, err := db.ResolveReference(ctx, "nightly"); !errors.Is(err, ErrNotFound) {
			t.Errorf("ResolveReference(nightly) = %v, want ErrNotFound", err)
		}
		bad := ref
		bad.PublishedMax = -1
		if _, err := db.ImportReference(ctx, RunInfo{Label: "bad", Source: "x"}, []BoardPoint{{"am64x", bad}}); err == nil {
			t.Error("ImportReference of a negative published max succeeded")
		}
	})
}

// TestCopyKeepsReferenceOutOfLatest copies a reference to another database: there too it is no latest point.
func TestCopyKeepsReferenceOutOfLatest(t *testing.T) {
	ctx := context.Background()
	src := openTest(t)
	ref := protocol.Point{Mode: "accelerator", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
		BytesPerSec: 134.93e6, PublishedMin: 130e6, PublishedMax: 140e6}
	if _, err := src.ImportReference(ctx, RunInfo{Label: "ti", Source: "TI"}, []BoardPoint{{"am64x-evm", ref}}); err != nil {
		t.Fatal(err)
	}
	dst := openAt(t, filepath.Join(t.TempDir(), "copy.db"))
	if _, err := Copy(ctx, src, dst, CopyFilter{}, nil); err != nil {
		t.Fatalf("Copy = %v", err)
	}
	if ms, err := dst.LatestPoints(ctx, Filter{}); err != nil || len(ms) != 0 {
		t.Errorf("LatestPoints after copy = %d points, %v; want none", len(ms), err)
	}
	_, pts, err := dst.Reference(ctx, "ti")
	if err != nil || len(pts) != 1 || pts[0].PublishedMax != 140e6 {
		t.Errorf("copied reference = %v, %v; want its point with the published range", pts, err)
	}
}
