package store

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByID checks the in-place permutation against a comparison sort, with every point's other fields
// carried along.
func TestSortByID(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		ms := make([]Measurement, n)
		for i := range ms {
			ms[i].ID = int64(r.IntN(3 * (n + 1)))
			ms[i].Board = "b" + string(rune('a'+i%26))
			ms[i].BytesPerSec = float64(ms[i].ID) * 2
		}
		// unique ids, as the database's are
		slices.SortFunc(ms, func(a, b Measurement) int { return int(a.ID - b.ID) })
		ms = slices.CompactFunc(ms, func(a, b Measurement) bool { return a.ID == b.ID })
		want := slices.Clone(ms)
		r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		sortByID(ms)
		if !slices.EqualFunc(ms, want, func(a, b Measurement) bool {
			return a.ID == b.ID && a.Board == b.Board && a.BytesPerSec == b.BytesPerSec
		}) {
			t.Fatalf("n=%d: sortByID gave %v", n, ms)
		}
	}
}
