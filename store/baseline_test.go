package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestResolveBaselinesHistory resolves every kind of reference against buildHistory: r4 (an import that
// started first), r1 nightly (a, b), r2 (a), r3 nightly (a failed without points, b), r5 nightly (c, no points).
func TestResolveBaselinesHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			ref     string
			judged  map[string]int64
			want    map[string]int64
			missing []string // boards without a baseline
			err     error
		}{
			{"nightly", map[string]int64{"a": h.r2, "b": h.r3}, map[string]int64{"a": h.r1, "b": h.r1}, nil, nil},
			{"nightly", map[string]int64{"a": h.r1, "b": h.r3}, map[string]int64{"b": h.r1}, []string{"a"}, nil},
			{"nightly", map[string]int64{"a": h.r1, "b": h.r1}, map[string]int64{}, []string{"a", "b"}, ErrNotFound},
			{"weekly", map[string]int64{"a": h.r2}, map[string]int64{}, []string{"a"}, ErrNotFound},
			{"previous", map[string]int64{"a": h.r2}, map[string]int64{"a": h.r1}, nil, nil},
			{"previous", map[string]int64{"a": h.r3}, map[string]int64{"a": h.r2}, nil, nil}, // r3 has no points of a
			{"previous", map[string]int64{"b": h.r3}, map[string]int64{"b": h.r1}, nil, nil},
			{"previous", map[string]int64{"a": h.r1}, map[string]int64{"a": h.r4}, nil, nil}, // the import started earlier
			{"previous", map[string]int64{"a": h.r4, "b": h.r3}, map[string]int64{"b": h.r1}, []string{"a"}, nil},
			{"previous", map[string]int64{"c": h.r5}, map[string]int64{}, []string{"c"}, ErrNotFound},
			{"latest", map[string]int64{"a": h.r2}, map[string]int64{"a": h.r1}, nil, nil},
			{"latest", map[string]int64{"a": h.r4}, map[string]int64{"a": h.r2}, nil, nil}, // newer runs count
			{fmt.Sprint(h.r1), map[string]int64{"a": h.r2, "b": h.r3}, map[string]int64{"a": h.r1, "b": h.r1}, nil, nil},
			{fmt.Sprint(h.r2), map[string]int64{"a": h.r2, "b": h.r3}, map[string]int64{}, []string{"a", "b"}, ErrBaselineIsJudged}, // a is r2 itself
			{fmt.Sprint(h.r1), map[string]int64{"a": h.r2, "b": h.r1}, map[string]int64{"a": h.r1}, []string{"b"}, nil},
			{"999", map[string]int64{"a": h.r2}, map[string]int64{}, nil, ErrNotFound},
			{"nightly", map[string]int64{"a": 999}, map[string]int64{}, nil, ErrNotFound},
			{"nightly", map[string]int64{}, map[string]int64{}, nil, ErrNotFound},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprint(tt.ref, tt.judged), func(t *testing.T) {
				bl, err := h.db.ResolveBaselines(context.Background(), tt.ref, tt.judged)
				if !errors.Is(err, tt.err) || (err != nil) != (tt.err != nil) {
					t.Errorf("ResolveBaselines(%q, %v) error = %v, want %v", tt.ref, tt.judged, err, tt.err)
				}
				if !reflect.DeepEqual(bl.Runs, tt.want) {
					t.Errorf("ResolveBaselines(%q, %v) = %v, want %v", tt.ref, tt.judged, bl.Runs, tt.want)
				}
				if got := sortedKeysOf(bl.Missing); !reflect.DeepEqual(got, tt.missing) {
					t.Errorf("ResolveBaselines(%q, %v) missing %v (%v), want %v", tt.ref, tt.judged, got, bl.Missing, tt.missing)
				}
			})
		}
		if _, err := h.db.ResolveBaselines(context.Background(), "", map[string]int64{"a": h.r2}); err == nil {
			t.Error("ResolveBaselines(\"\") succeeded")
		}
	})
}

func sortedKeysOf(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestResolveBaselinesBoardWithoutLabel is the store's side of judging only the boards that have a baseline: the
// database holds a board added last week (b: a newer run, never labelled nightly) and an old import (c); board a
// is judged against its last good nightly run (the newest nightly, where all its points failed, is not valid),
// and b and c are each named as without a baseline, with the reason, instead of failing the whole check.
func TestResolveBaselinesBoardWithoutLabel(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		day := func(d int) time.Time { return time.Date(2026, 3, d, 2, 0, 0, 0, time.UTC) }
		runOf := func(label string, started time.Time, board string, failed bool) int64 {
			t.Helper()
			w, err := db.BeginRun(ctx, RunInfo{Label: label, Started: started})
			if err != nil {
				t.Fatal(err)
			}
			p := pt("cpu", "aes-128-cbc", 16, 0, 1e8)
			if failed {
				p.Failed, p.Error = true, "engine fell back to software"
			}
			if err := errors.Join(w.Point(ctx, board, p), w.BoardFinished(ctx, board, "ok", ""),
				w.Finish(ctx, protocol.StatusOK)); err != nil {
				t.Fatal(err)
			}
			return w.RunID()
		}
		imported := runOf("", day(1), "c", false)
		good := runOf("nightly", day(2), "a", false)
		runOf("nightly", day(3), "a", true) // every point failed: not a baseline
		judgedA := runOf("", day(4), "a", false)
		judgedB := runOf("", day(5), "b", false)

		bl, err := db.ResolveBaselines(ctx, "nightly", map[string]int64{"a": judgedA, "b": judgedB, "c": imported})
		if err != nil {
			t.Fatalf("ResolveBaselines = %v; want a judged, b and c without a baseline", err)
		}
		if want := map[string]int64{"a": good}; !reflect.DeepEqual(bl.Runs, want) {
			t.Errorf("runs = %v, want %v", bl.Runs, want)
		}
		for board, run := range map[string]int64{"b": judgedB, "c": imported} {
			want := fmt.Sprintf("no run labelled \"nightly\" with valid points of %s before run %d", board, run)
			if got := bl.Missing[board]; got != want {
				t.Errorf("missing[%s] = %q, want %q", board, got, want)
			}
		}

		_, err = db.ResolveBaselines(ctx, "nightly", map[string]int64{"b": judgedB, "c": imported})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("no board with a baseline: %v, want ErrNotFound", err)
		}
		for _, want := range []string{`no board has baseline "nightly"`, "b: no run labelled", "c: no run labelled", db.Path} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
	})
}
