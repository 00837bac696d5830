package store

import (
	"context"
	"reflect"
	"testing"
)

// TestHistoryOfEach: one call gives every key what History gives it alone — the same points in the same order,
// overlapping keys each with all of theirs — and leaves out a key no point matches; a key without a board is
// refused as History refuses it.
func TestHistoryOfEach(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		ctx := context.Background()
		keys := []SeriesKey{
			{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16},
			{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Threads: 1, Op: "encrypt"},
			{Board: "b", Mode: "cpu", Algorithm: "sha256", BlockSize: 64},
			{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Threads: 2},
		}
		got, err := h.db.HistoryOfEach(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			want, err := h.db.History(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				if ms, ok := got[k]; ok {
					t.Errorf("HistoryOfEach[%+v] = %v, want absent", k, throughputs(ms))
				}
				continue
			}
			if !reflect.DeepEqual(got[k], want) {
				t.Errorf("HistoryOfEach[%+v] = %v, want History's %v", k, throughputs(got[k]), throughputs(want))
			}
		}
		if len(got) != 3 {
			t.Errorf("HistoryOfEach has %d keys, want 3", len(got))
		}
		if _, err := h.db.HistoryOfEach(ctx, []SeriesKey{{Mode: "cpu", Algorithm: "sha256"}}); err == nil {
			t.Error("HistoryOfEach without a board: no error")
		}
	})
}
