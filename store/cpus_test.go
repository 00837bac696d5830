package store

import (
	"context"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestPointCPUsStored: a pinned point's CPUs, cluster and busy shares survive the store (both dialects, through
// the writer's INSERT or COPY, every read and a copy between stores), and an unpinned point reads back with none.
func TestPointCPUsStored(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{Label: "clusters"})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.BoardStarted(ctx, "rk3399"))
		little := pt("cpu", "aes-128-cbc", 16384, 0, 300e6)
		little.CPUs, little.Cluster, little.PinnedBusyPct, little.OtherBusyPct = "0-3", "A53", 99.5, 1.5
		big := pt("cpu", "aes-128-cbc", 16384, 0, 900e6)
		big.CPUs, big.Cluster, big.PinnedBusyPct = "4-5", "A72", 98
		free := pt("cpu", "aes-128-cbc", 16384, 0, 600e6)
		for _, p := range []protocol.Point{little, big, free} {
			must(t, w.Point(ctx, "rk3399", p))
		}
		must(t, w.BoardFinished(ctx, "rk3399", protocol.StatusOK, ""))
		must(t, w.Finish(ctx, protocol.StatusOK))
		dst := b.open(t)
		if _, err := Copy(ctx, db, dst, CopyFilter{}, nil); err != nil {
			t.Fatal(err)
		}
		for name, d := range map[string]*DB{"source": db, "copy": dst} {
			for _, f := range []Filter{{RunID: w.RunID()}, {Latest: true}, {Latest: true, ForRegression: true}} {
				ms, err := d.Measurements(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(ms) != 3 {
					t.Fatalf("%s %+v: %d points, want 3", name, f, len(ms))
				}
				got := map[string]string{}
				for _, m := range ms {
					got[m.Cluster] = m.CPUs
					if m.Cluster == "A53" && !f.ForRegression && (m.PinnedBusyPct != 99.5 || m.OtherBusyPct != 1.5) {
						t.Errorf("%s %+v: A53 busy %.1f/%.1f, want 99.5/1.5", name, f, m.PinnedBusyPct, m.OtherBusyPct)
					}
				}
				if got["A53"] != "0-3" || got["A72"] != "4-5" || got[""] != "" || len(got) != 3 {
					t.Errorf("%s %+v: clusters → cpus %v, want A53 0-3, A72 4-5 and one unpinned", name, f, got)
				}
			}
		}
	})
}
