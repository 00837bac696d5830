package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestMeasuredRunRefusesReferenceLabel: a reference's label is refused for a measured run, recorded (BeginRun)
// or imported (BeginImport), with an error naming the reference; and a label that has both kinds anyway (a
// database from before the guard) resolves to neither run.
func TestMeasuredRunRefusesReferenceLabel(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		ref := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
			BytesPerSec: 727.48e6, Line: 9}
		refID, err := db.ImportReference(ctx, RunInfo{Label: "r-good", Source: "vendor"}, []BoardPoint{{"am64x", ref}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.BeginRun(ctx, RunInfo{Label: "r-good"}); !errors.Is(err, ErrLabelReference) ||
			!strings.Contains(err.Error(), "fleet import --reference r-good") {
			t.Errorf("BeginRun(label of a reference) = %v, want ErrLabelReference naming it", err)
		}
		if _, err := db.BeginImport(ctx, RunInfo{Label: "r-good"}); !errors.Is(err, ErrLabelReference) {
			t.Errorf("BeginImport(label of a reference) = %v, want ErrLabelReference", err)
		}
		if got, err := db.ResolveRun(ctx, "r-good"); err != nil || got != refID {
			t.Errorf("ResolveRun(r-good) = %d, %v; want the reference %d", got, err, refID)
		}
		// what a database written before the guard can hold: a measured run under the reference's label
		w, err := db.BeginRun(ctx, RunInfo{Label: "other"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		if _, err := db.db.ExecContext(ctx, `UPDATE runs SET label = 'r-good' WHERE id = ?`, w.id); err != nil {
			t.Fatal(err)
		}
		if got, err := db.ResolveRun(ctx, "r-good"); !errors.Is(err, ErrLabelMixed) {
			t.Errorf("ResolveRun(mixed label) = %d, %v; want ErrLabelMixed, neither run", got, err)
		}
		ms, err := db.LatestPoints(ctx, Filter{Label: "r-good"})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.RunID == refID {
				t.Errorf("LatestPoints(label r-good) has the reference's point %+v", m.Point)
			}
		}
	})
}

// TestBaselineRefusesReference: a reference's label or run id as a regress baseline is refused as a reference
// (ErrReferenceRun), not answered "no run labelled X with valid points", which sent users looking for runs that
// were never meant to exist; a label that measured runs share is still resolved among those.
func TestBaselineRefusesReference(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		ref := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
			BytesPerSec: 727.48e6, Line: 9}
		refID, err := db.ImportReference(ctx, RunInfo{Label: "ti", Source: "vendor"}, []BoardPoint{{"am64x", ref}})
		if err != nil {
			t.Fatal(err)
		}
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		judged := map[string]int64{"am64x": w.id}
		for _, baseline := range []string{"ti", strconv.FormatInt(refID, 10)} {
			_, err := db.ResolveBaselineWindow(ctx, baseline, 3, judged)
			if !errors.Is(err, ErrReferenceRun) || !strings.Contains(err.Error(), "is a reference") {
				t.Errorf("ResolveBaselineWindow(%s) = %v, want ErrReferenceRun saying it is a reference", baseline, err)
			}
		}
		if _, err := db.ResolveBaselineWindow(ctx, "nightly", 3, judged); errors.Is(err, ErrReferenceRun) {
			t.Errorf("ResolveBaselineWindow(nightly) = %v, a measured label refused as a reference", err)
		}
	})
}
