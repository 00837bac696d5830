package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// nightsOf summarizes histories as "board/mode/alg/size: run:values …" for compact comparisons.
func nightsOf(h *Histories) []string {
	out := []string{}
	for _, s := range h.Series {
		line := fmt.Sprintf("%s/%s/%s/%d:", s.Key.Board, s.Key.Mode, s.Key.Algorithm, s.Key.BlockSize)
		for _, n := range s.Nights {
			line += fmt.Sprintf(" %d:%v", n.RunID, n.Values)
			if n.Failed > 0 {
				line += fmt.Sprintf("+%dfailed", n.Failed)
			}
		}
		out = append(out, line)
	}
	return out
}

func TestSeriesHistories(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		r1, r2, r3, r4 := h.r1, h.r2, h.r3, h.r4
		tests := []struct {
			name string
			f    HistoryFilter
			want []string
		}{
			{"all, oldest run first (the import of a year before comes first)", HistoryFilter{}, []string{
				fmt.Sprintf("a/cpu/aes-128-cbc/16: %d:[10] %d:[100 110] %d:[120 130]", r4, r1, r2),
				fmt.Sprintf("a/cpu/aes-128-cbc/1024: %d:[1000]", r1),
				fmt.Sprintf("a/soft/aes-128-cbc/16: %d:[50]", r1),
				fmt.Sprintf("b/cpu/sha256/64: %d:[200] %d:[210]", r1, r3)}},
			{"one board", HistoryFilter{Boards: []string{"b"}}, []string{fmt.Sprintf("b/cpu/sha256/64: %d:[200] %d:[210]", r1, r3)}},
			{"label", HistoryFilter{Label: "nightly", Modes: []string{"cpu"}, Sizes: []int{16}}, []string{
				fmt.Sprintf("a/cpu/aes-128-cbc/16: %d:[100 110]", r1)}},
			{"mode and algorithm", HistoryFilter{Modes: []string{"soft", "devcrypto"}, Algorithms: []string{"aes-128-cbc"}}, []string{
				fmt.Sprintf("a/soft/aes-128-cbc/16: %d:[50]", r1)}},
			// a's two newest board runs are r3 (failed, no points) and r2
			{"newest two runs per board", HistoryFilter{MaxRuns: 2, Boards: []string{"a"}}, []string{
				fmt.Sprintf("a/cpu/aes-128-cbc/16: %d:[120 130]", r2)}},
			{"nothing", HistoryFilter{Boards: []string{"zz"}}, []string{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := h.db.SeriesHistories(context.Background(), tt.f)
				if err != nil {
					t.Fatal(err)
				}
				if g := nightsOf(got); !reflect.DeepEqual(g, tt.want) {
					t.Errorf("SeriesHistories(%+v) =\n%q\nwant\n%q", tt.f, g, tt.want)
				}
			})
		}

		got, err := h.db.SeriesHistories(context.Background(), HistoryFilter{MaxRuns: 2})
		if err != nil {
			t.Fatal(err)
		}
		if b, want := got.Boards["a"], (HistoryBoard{TotalRuns: 4, ReadRuns: 2}); b != want {
			t.Errorf("board a read %+v, want %+v", b, want)
		}
		if f := got.FactsOf(r2, "a"); f == nil || f.Kernel != "6.6" {
			t.Errorf("FactsOf(r2, a) = %+v, want kernel 6.6", f)
		}
		if f := got.FactsOf(r1, "a"); f != nil {
			t.Errorf("FactsOf(r1, a) = %+v outside the window of two runs, want nil", f)
		}
		if r, ok := got.Runs[r2]; !ok || r.Started.IsZero() {
			t.Errorf("Runs[r2] = %+v, %v; want its start", r, ok)
		}
	})
}

// TestSeriesHistoriesCountsFailedPoints: a failed point is counted in its night, never used as a value.
func TestSeriesHistoriesCountsFailedPoints(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		bad := pt("afalg", "aes-128-cbc", 16, 1, 5)
		bad.Failed, bad.Error = true, "engine fell back to software"
		good := pt("afalg", "aes-128-cbc", 16, 0, 100)
		good.Driver = "cbc-aes-ce"
		for _, p := range []protocol.Point{good, bad} {
			if err := w.Point(ctx, "a", p); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		h, err := db.SeriesHistories(ctx, HistoryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := nightsOf(h), []string{fmt.Sprintf("a/afalg/aes-128-cbc/16: %d:[100]+1failed", w.RunID())}; !reflect.DeepEqual(got, want) {
			t.Errorf("nights = %q, want %q", got, want)
		}
		if got := h.Series[0].Nights[0].Drivers; !reflect.DeepEqual(got, []string{"cbc-aes-ce"}) {
			t.Errorf("drivers = %q, want [cbc-aes-ce]", got)
		}
	})
}

// TestSeriesHistoriesKeepsInvalidApart: an invalid point never enters Values, but its value and its distinct
// reasons are kept beside them, so that a report can say what was left out and why.
func TestSeriesHistoriesKeepsInvalidApart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		var ps []protocol.Point
		for i, bg := range []string{"background CPU 72 % (limit 8 %)", "background CPU 64 % (limit 8 %)", "background CPU 72 % (limit 8 %)"} {
			p := pt("cpu", "aes-128-cbc", 16, i, float64(10+i))
			p.Validity, p.ValidityReasons = protocol.ValidityInvalid, []string{bg}
			ps = append(ps, p)
		}
		ok := pt("cpu", "aes-128-cbc", 16, 3, 100)
		ok.Validity = protocol.ValidityOK
		for _, p := range append(ps, ok) {
			if err := w.Point(ctx, "a", p); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		h, err := db.SeriesHistories(ctx, HistoryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		n := h.Series[0].Nights[0]
		if !reflect.DeepEqual(n.Values, []float64{100}) || n.Invalid != 3 {
			t.Errorf("values %v, invalid %d; want [100] and 3", n.Values, n.Invalid)
		}
		if want := []float64{10, 11, 12}; !reflect.DeepEqual(n.InvalidValues, want) {
			t.Errorf("invalid values %v, want %v", n.InvalidValues, want)
		}
		if want := []string{"background CPU 72 % (limit 8 %)", "background CPU 64 % (limit 8 %)"}; !reflect.DeepEqual(n.InvalidReasons, want) {
			t.Errorf("invalid reasons %q, want %q", n.InvalidReasons, want)
		}
	})
}
