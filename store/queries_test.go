package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// history builds five runs over boards a, b and c:
//
//	r1 nightly   a: cpu aes16 ×2, cpu aes1024, soft aes16; b: cpu sha256; a skipped afalg; ok
//	r2 (none)    a: cpu aes16 ×2; ok
//	r3 nightly   b: cpu sha256; a failed without points; partial
//	r4 imported, started a year before r1: a: cpu aes16
//	r5 running   c: facts only; the controller "died" (never finished)
type history struct {
	db                 *DB
	dsn                string // to open it again
	r1, r2, r3, r4, r5 int64
}

func buildHistory(t *testing.T, b backend) history {
	t.Helper()
	ctx := context.Background()
	dsn := b.newDSN(t)
	db := openAt(t, dsn)
	h := history{db: db, dsn: dsn}
	run := func(info RunInfo, status protocol.Status, f func(w *RunWriter) error) int64 {
		t.Helper()
		w, err := db.BeginRun(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		if err := f(w); err != nil {
			t.Fatal(err)
		}
		if status != "" {
			if err := w.Finish(ctx, status); err != nil {
				t.Fatal(err)
			}
		}
		return w.RunID()
	}
	points := func(w *RunWriter, board string, ps ...protocol.Point) error {
		for _, p := range ps {
			if err := w.Point(ctx, board, p); err != nil {
				return err
			}
		}
		return nil
	}
	sha := func(bps float64) protocol.Point {
		p := pt("cpu", "sha256", 64, 0, bps)
		p.Op = "digest"
		return p
	}
	h.r1 = run(RunInfo{Label: "nightly", ToolVersion: "v1", Host: "ctl"}, protocol.StatusOK, func(w *RunWriter) error {
		return errors.Join(
			w.BoardStarted(ctx, "a"),
			w.BoardFacts(ctx, "a", protocol.Facts{Hostname: "a-old", Kernel: "6.1"}),
			w.Skip(ctx, "a", protocol.Skip{Mode: "afalg", Reason: "no AF_ALG"}),
			w.Raw(ctx, "a", rawOf(1, "type 16 bytes\n")),
			points(w, "a", pt("cpu", "aes-128-cbc", 16, 0, 100), pt("cpu", "aes-128-cbc", 16, 1, 110),
				pt("cpu", "aes-128-cbc", 1024, 0, 1000), pt("soft", "aes-128-cbc", 16, 0, 50)),
			w.BoardFinished(ctx, "a", "ok", ""),
			w.BoardFacts(ctx, "b", protocol.Facts{Hostname: "b1"}),
			points(w, "b", sha(200)),
			w.BoardFinished(ctx, "b", "ok", ""))
	})
	h.r2 = run(RunInfo{}, protocol.StatusOK, func(w *RunWriter) error {
		return errors.Join(
			w.BoardFacts(ctx, "a", protocol.Facts{Hostname: "a-new", Kernel: "6.6"}),
			points(w, "a", pt("cpu", "aes-128-cbc", 16, 0, 120), pt("cpu", "aes-128-cbc", 16, 1, 130)),
			w.BoardFinished(ctx, "a", "ok", ""))
	})
	h.r3 = run(RunInfo{Label: "nightly"}, protocol.StatusPartial, func(w *RunWriter) error {
		return errors.Join(
			w.BoardStarted(ctx, "a"),
			w.BoardFinished(ctx, "a", "failed", "link cut"),
			points(w, "b", sha(210)),
			w.BoardFinished(ctx, "b", "ok", ""))
	})
	h.r4 = run(RunInfo{Source: "imported from S00.txt", Started: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)},
		protocol.StatusImported, func(w *RunWriter) error {
			return errors.Join(points(w, "a", pt("cpu", "aes-128-cbc", 16, 0, 10)), w.BoardFinished(ctx, "a", "ok", ""))
		})
	h.r5 = run(RunInfo{Label: "nightly"}, "", func(w *RunWriter) error {
		return errors.Join(w.BoardStarted(ctx, "c"), w.BoardFacts(ctx, "c", protocol.Facts{Hostname: "c"}))
	})
	return h
}

// throughputs lists each measurement's bytes/s, for compact comparisons.
func throughputs(ms []Measurement) []float64 {
	out := []float64{}
	for _, m := range ms {
		out = append(out, m.BytesPerSec)
	}
	return out
}

func TestRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			f      RunFilter
			ids    []int64
			points []int
		}{
			{RunFilter{}, []int64{h.r5, h.r3, h.r2, h.r1, h.r4}, []int{0, 1, 2, 5, 1}},
			{RunFilter{Label: "nightly"}, []int64{h.r5, h.r3, h.r1}, []int{0, 1, 5}},
			{RunFilter{Limit: 2}, []int64{h.r5, h.r3}, []int{0, 1}},
			{RunFilter{Label: "weekly"}, []int64{}, []int{}},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%+v", tt.f), func(t *testing.T) {
				runs, err := h.db.Runs(context.Background(), tt.f)
				if err != nil {
					t.Fatal(err)
				}
				ids, points := []int64{}, []int{}
				for _, r := range runs {
					ids, points = append(ids, r.ID), append(points, r.Points)
				}
				if !reflect.DeepEqual(ids, tt.ids) || !reflect.DeepEqual(points, tt.points) {
					t.Errorf("Runs(%+v) = ids %v points %v, want %v %v", tt.f, ids, points, tt.ids, tt.points)
				}
			})
		}
		runs, err := h.db.Runs(context.Background(), RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[int64]Run{}
		for _, r := range runs {
			byID[r.ID] = r
		}
		if r := byID[h.r3]; r.Status != protocol.StatusPartial || r.Finished.IsZero() || !reflect.DeepEqual(r.Boards, []string{"a", "b"}) {
			t.Errorf("run 3 = %+v, want partial, finished, boards a b", r)
		}
		if r := byID[h.r5]; r.Status != protocol.StatusRunning || !r.Finished.IsZero() {
			t.Errorf("run 5 = %+v, want running and unfinished (incomplete)", r)
		}
		if r := byID[h.r4]; r.Source != "imported from S00.txt" || r.Status != protocol.StatusImported || r.Started.Year() != 2025 {
			t.Errorf("run 4 = %+v, want the import with its own start time", r)
		}
		if r := byID[h.r1]; r.Label != "nightly" || r.ToolVersion != "v1" || r.Host != "ctl" {
			t.Errorf("run 1 = %+v, want its RunInfo back", r)
		}
	})
}

func TestResolveRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			ref     string
			want    int64
			wantErr string // substring; the error must also wrap ErrNotFound
		}{
			{"latest", h.r5, ""},
			{"", h.r5, ""},
			{"nightly", h.r5, ""},
			{strconv.FormatInt(h.r1, 10), h.r1, ""},
			{"999", 0, "no run 999 in " + h.db.Path},
			{"weekly", 0, `no run labelled "weekly" in ` + h.db.Path},
		}
		for _, tt := range tests {
			t.Run(tt.ref, func(t *testing.T) {
				got, err := h.db.ResolveRun(context.Background(), tt.ref)
				if tt.wantErr != "" {
					if err == nil || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tt.wantErr) {
						t.Errorf("ResolveRun(%q) = %d, %v; want error %q", tt.ref, got, err, tt.wantErr)
					}
					return
				}
				if err != nil || got != tt.want {
					t.Errorf("ResolveRun(%q) = %d, %v; want %d", tt.ref, got, err, tt.want)
				}
			})
		}
	})
}

func TestMeasurements(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			name string
			f    Filter
			want []float64
		}{
			{"one run", Filter{RunID: h.r1}, []float64{100, 110, 1000, 50, 200}},
			{"one run, one board", Filter{RunID: h.r1, Board: "a"}, []float64{100, 110, 1000, 50}},
			{"one run, one mode", Filter{RunID: h.r1, Mode: "soft"}, []float64{50}},
			{"one run, one size", Filter{RunID: h.r1, Size: 1024, SizeSet: true}, []float64{1000}},
			{"size not set", Filter{RunID: h.r1, Size: 1024, Algorithm: "sha256"}, []float64{200}},
			{"a series over all runs, oldest first", Filter{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", Size: 16,
				SizeSet: true}, []float64{10, 100, 110, 120, 130}},
			{"label", Filter{Label: "nightly"}, []float64{100, 110, 1000, 50, 200, 210}},
			{"latest run of each board", Filter{Latest: true}, []float64{120, 130, 210}},
			{"latest nightly of each board", Filter{Latest: true, Label: "nightly"}, []float64{100, 110, 1000, 50, 210}},
			{"latest of one board", Filter{Latest: true, Board: "b"}, []float64{210}},
			{"no match", Filter{Board: "zzz"}, []float64{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ms, err := h.db.Measurements(context.Background(), tt.f)
				if err != nil {
					t.Fatal(err)
				}
				if got := throughputs(ms); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Measurements(%+v) = %v, want %v", tt.f, got, tt.want)
				}
			})
		}
		if _, err := h.db.Measurements(context.Background(), Filter{RunID: h.r1, Latest: true}); err == nil {
			t.Error("Measurements with a run id and latest: no error")
		}
	})
}

func TestMeasurementRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db := b.open(t)
		w, err := db.BeginRun(ctx, RunInfo{Label: "rt", ToolVersion: "v1.2.3"})
		if err != nil {
			t.Fatal(err)
		}
		p := protocol.Point{Mode: "engine:vendor", Algorithm: "ecdsa", Op: "sign", KeyBits: 256, Curve: "nistp256",
			Threads: 4, Repeat: 2, Engine: "vendor", Driver: "caam", Count: 12345, Seconds: 2.9, Timing: "cpu",
			WallEst: 3, OpsPerSec: 4256.9, WallS: 3.01, UserS: 2.9, SysS: 0.02, CPUPct: 97, SysBusyPct: 51.5,
			IRQDelta: 77, Failed: true, Error: "engine fell back", Flags: []string{"default-3s", "x"}, RawID: 9, Line: 4}
		if err := w.Point(ctx, "imx8", p); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
		ms, err := db.Measurements(ctx, Filter{RunID: w.RunID()})
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 {
			t.Fatalf("%d measurements, want 1", len(ms))
		}
		m := ms[0]
		if !reflect.DeepEqual(m.Point, p) || m.Board != "imx8" || m.RunLabel != "rt" || m.RunTool != "v1.2.3" || m.RunID != w.RunID() ||
			m.RunStarted.IsZero() || m.ID == 0 {
			t.Errorf("stored %+v\nwant point %+v", m, p)
		}
	})
}

func TestLatestPoints(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			name string
			f    Filter
			want []float64
		}{
			// by series: a cpu 16 (r2, not the older import r4), a cpu 1024, a soft 16, b cpu sha256
			{"all series", Filter{}, []float64{120, 130, 1000, 50, 210}},
			{"one board", Filter{Board: "b"}, []float64{210}},
			{"one size", Filter{Size: 16, SizeSet: true}, []float64{120, 130, 50}},
			{"one mode", Filter{Mode: "soft"}, []float64{50}},
			{"label", Filter{Label: "nightly"}, []float64{100, 110, 1000, 50, 210}},
			{"label and board", Filter{Label: "nightly", Board: "a", Mode: "cpu"}, []float64{100, 110, 1000}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ms, err := h.db.LatestPoints(context.Background(), tt.f)
				if err != nil {
					t.Fatal(err)
				}
				if got := throughputs(ms); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("LatestPoints(%+v) = %v, want %v", tt.f, got, tt.want)
				}
			})
		}
		if _, err := h.db.LatestPoints(context.Background(), Filter{RunID: h.r1}); err == nil {
			t.Error("LatestPoints with a run id: no error")
		}
	})
}

func TestHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			k      SeriesKey
			want   []float64
			labels []string
		}{
			{SeriesKey{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16},
				[]float64{10, 100, 110, 120, 130}, []string{"", "nightly", "nightly", "", ""}},
			{SeriesKey{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Threads: 1, Op: "encrypt"},
				[]float64{10, 100, 110, 120, 130}, []string{"", "nightly", "nightly", "", ""}},
			{SeriesKey{Board: "b", Mode: "cpu", Algorithm: "sha256", BlockSize: 64}, []float64{200, 210},
				[]string{"nightly", "nightly"}},
			{SeriesKey{Board: "a", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, Threads: 2}, []float64{}, []string{}},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%+v", tt.k), func(t *testing.T) {
				ms, err := h.db.History(context.Background(), tt.k)
				if err != nil {
					t.Fatal(err)
				}
				labels := []string{}
				for i, m := range ms {
					labels = append(labels, m.RunLabel)
					if i > 0 && m.RunStarted.Before(ms[i-1].RunStarted) {
						t.Errorf("History not oldest first at %d", i)
					}
				}
				if got := throughputs(ms); !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(labels, tt.labels) {
					t.Errorf("History(%+v) = %v %q, want %v %q", tt.k, got, labels, tt.want, tt.labels)
				}
			})
		}
		if _, err := h.db.History(context.Background(), SeriesKey{Mode: "cpu", Algorithm: "sha256"}); err == nil {
			t.Error("History without a board: no error")
		}
	})
}
