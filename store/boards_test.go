package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func TestBoardRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		ctx := context.Background()
		type summary struct {
			Board, Status, Error, Host string
			Points                     int
			Skips                      []protocol.Skip
			Finished                   bool
		}
		tests := []struct {
			run  int64
			want []summary
		}{
			{h.r1, []summary{
				{"a", "ok", "", "a-old", 4, []protocol.Skip{{Mode: "afalg", Reason: "no AF_ALG"}}, true},
				{"b", "ok", "", "b1", 1, nil, true}}},
			{h.r3, []summary{{"a", "failed", "link cut", "", 0, nil, true}, {"b", "ok", "", "", 1, nil, true}}},
			{h.r5, []summary{{"c", "running", "", "c", 0, nil, false}}},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprint("run ", tt.run), func(t *testing.T) {
				brs, err := h.db.BoardRuns(ctx, tt.run)
				if err != nil {
					t.Fatal(err)
				}
				got := []summary{}
				for _, br := range brs {
					s := summary{br.Board, string(br.Status), br.Error, "", br.Points, br.Skips, !br.Finished.IsZero()}
					if br.Facts != nil {
						s.Host = br.Facts.Hostname
					}
					if br.RunID != tt.run || br.Started.IsZero() {
						t.Errorf("board %s: run %d, started %v", br.Board, br.RunID, br.Started)
					}
					got = append(got, s)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("BoardRuns(%d) =\n%+v\nwant\n%+v", tt.run, got, tt.want)
				}
			})
		}
		if _, err := h.db.BoardRuns(ctx, 999); !errors.Is(err, ErrNotFound) {
			t.Errorf("BoardRuns(999) = %v, want ErrNotFound", err)
		}
	})
}

func TestRawOutputs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		ctx := context.Background()
		tests := []struct {
			board string
			want  []RawOutput
		}{
			{"a", []RawOutput{{RunID: h.r1, Board: "a", Raw: rawOf(1, "type 16 bytes\n")}}},
			{"", []RawOutput{{RunID: h.r1, Board: "a", Raw: rawOf(1, "type 16 bytes\n")}}},
			{"b", nil},
		}
		for _, tt := range tests {
			got, err := h.db.RawOutputs(ctx, h.r1, tt.board)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RawOutputs(%d, %q) = %+v, want %+v", h.r1, tt.board, got, tt.want)
			}
		}
		if _, err := h.db.RawOutputs(ctx, 999, ""); !errors.Is(err, ErrNotFound) {
			t.Errorf("RawOutputs(999) = %v, want ErrNotFound", err)
		}
	})
}

func TestLatestFacts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			board, host string // host "": no facts
		}{
			{"a", "a-new"}, // r2; r3 and the import r4 have no facts for a
			{"b", "b1"},
			{"c", "c"}, // an incomplete run still has the probe's facts
			{"zzz", ""},
		}
		for _, tt := range tests {
			f, at, err := h.db.LatestFacts(context.Background(), tt.board)
			if err != nil {
				t.Fatal(err)
			}
			host := ""
			if f != nil {
				host = f.Hostname
				if at.IsZero() {
					t.Errorf("LatestFacts(%s): zero time", tt.board)
				}
			}
			if host != tt.host {
				t.Errorf("LatestFacts(%s) = host %q, want %q", tt.board, host, tt.host)
			}
		}
	})
}

func TestFactsOfRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := buildHistory(t, b)
		tests := []struct {
			board string
			runs  []int64
			want  map[int64]string // run -> kernel
		}{
			{"a", []int64{h.r1, h.r2, h.r3, h.r4}, map[int64]string{h.r1: "6.1", h.r2: "6.6"}},
			{"a", []int64{h.r2}, map[int64]string{h.r2: "6.6"}},
			{"b", []int64{h.r1, h.r3}, map[int64]string{h.r1: ""}},
			{"a", nil, map[int64]string{}},
		}
		for _, tt := range tests {
			got, err := h.db.FactsOfRuns(context.Background(), tt.board, tt.runs)
			if err != nil {
				t.Fatal(err)
			}
			kernels := map[int64]string{}
			for id, f := range got {
				kernels[id] = f.Kernel
			}
			if !reflect.DeepEqual(kernels, tt.want) {
				t.Errorf("FactsOfRuns(%s, %v) = %v, want %v", tt.board, tt.runs, kernels, tt.want)
			}
		}
	})
}
