package report

import (
	"math/rand/v2"
	"time"

	"github.com/fleetlab/fleet/store"
)

// Synthetic histories with known truth for the change-point tests and benchmark.

// synthStart is the start of night 0; night i starts i days later.
var synthStart = time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)

// level is the true throughput of night i relative to the first night.
type level func(i int) float64

// steps returns a level that is 1 before at[0], then multiplied by 1+deltas[k] from night at[k] on.
func steps(at []int, deltas []float64) level {
	return func(i int) float64 {
		v := 1.0
		for k, a := range at {
			if i >= a {
				v *= 1 + deltas[k]
			}
		}
		return v
	}
}

// synthSeries draws n nights of base × level(i) × (1 + noise·N(0,1)), reps repeats each, from a seeded generator.
func synthSeries(seed uint64, n, reps int, base, noise float64, lv level) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 42))
	out := make([][]float64, n)
	for i := range out {
		for range reps {
			out[i] = append(out[i], base*lv(i)*(1+noise*rng.NormFloat64()))
		}
	}
	return out
}

// synthHistories builds stored histories of the given series on board am64x, mode afalg, aes-128-cbc encrypt, one
// series per block size (16 B, 32 B, … 16 KiB, then again with one more thread): run i+1 is night i of every
// series.
func synthHistories(series ...[][]float64) *store.Histories {
	h := &store.Histories{Runs: map[int64]store.HistoryRun{}, Boards: map[string]store.HistoryBoard{}}
	nightsMax := 0
	for k, nights := range series {
		s := store.SeriesHistory{Key: store.SeriesKey{Board: "am64x", Mode: "afalg", Algorithm: "aes-128-cbc",
			Op: "encrypt", BlockSize: 16 << (k % 11), Threads: 1 + k/11}}
		for i, vs := range nights {
			s.Nights = append(s.Nights, store.Night{RunID: int64(i + 1), Values: vs})
		}
		h.Series = append(h.Series, s)
		nightsMax = max(nightsMax, len(nights))
	}
	for i := range nightsMax {
		h.Runs[int64(i+1)] = store.HistoryRun{Started: synthStart.AddDate(0, 0, i), Label: "nightly", ToolVersion: "1.0"}
	}
	h.Boards["am64x"] = store.HistoryBoard{TotalRuns: nightsMax, ReadRuns: nightsMax}
	return h
}
