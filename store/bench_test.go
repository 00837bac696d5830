package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// The figures for bench/README.md come from `go run ./bench/store -points 1000000`; these benchmarks track
// the same paths at a size that suits `go test -bench . ./store/`.

// BenchmarkRunWriterPoint is the cost of one streamed point, batches of the default size included, on each
// backend (PostgreSQL: the test server of internal/pgtest, over TCP on loopback).
func BenchmarkRunWriterPoint(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) { benchRunWriterPoint(b, be.newDSN(b)) })
	}
}

func benchRunWriterPoint(b *testing.B, dsn string) {
	ctx := context.Background()
	db, err := Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, RunInfo{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := w.Point(ctx, "a", pt("cpu", "aes-128-cbc", 16<<(i%6), i/6, 1e6)); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Finish(ctx, protocol.StatusOK); err != nil {
		b.Fatal(err)
	}
}

// benchHistory fills the database dsn with runs × 3 boards × 180 points.
func benchHistory(b *testing.B, dsn string, runs int) *DB {
	b.Helper()
	ctx := context.Background()
	db, err := Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	for range runs {
		w, err := db.BeginRun(ctx, RunInfo{Label: "nightly"})
		if err != nil {
			b.Fatal(err)
		}
		for board := range 3 {
			for _, mode := range []string{"soft", "cpu", "afalg"} {
				for _, alg := range []string{"aes-128-cbc", "aes-256-cbc", "sha256", "sha512", "chacha20", "sm4"} {
					for _, size := range []int{16, 64, 256, 1024, 8192, 16384} {
						for r := range 2 {
							if err := w.Point(ctx, fmt.Sprint("b", board), pt(mode, alg, size, r, 1e6)); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
			}
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

func BenchmarkQueries(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) { benchQueries(b, be.newDSN(b)) })
	}
}

func benchQueries(b *testing.B, dsn string) {
	db := benchHistory(b, dsn, 50) // 162,000 points, 972 series
	ctx := context.Background()
	for _, q := range []struct {
		name string
		f    func() error
	}{
		{"LatestPoints", func() error { _, err := db.LatestPoints(ctx, Filter{}); return err }},
		{"LatestPointsOneBoard", func() error { _, err := db.LatestPoints(ctx, Filter{Board: "b1"}); return err }},
		{"History", func() error {
			_, err := db.History(ctx, SeriesKey{Board: "b2", Mode: "cpu", Algorithm: "sha256", BlockSize: 1024})
			return err
		}},
		{"Runs20", func() error { _, err := db.Runs(ctx, RunFilter{Limit: 20}); return err }},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if err := q.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
