package report

import (
	"reflect"
	"slices"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestHistoryChartSeries: one series per board, mode and algorithm, at the largest block size measured (0 for
// a public-key series), failed points and algorithms not asked for left out, in order.
func TestHistoryChartSeries(t *testing.T) {
	m := func(board, mode, alg string, size int, failed bool) store.Measurement {
		return store.Measurement{Board: board, Point: protocol.Point{Mode: mode, Algorithm: alg, BlockSize: size, Failed: failed}}
	}
	ms := []store.Measurement{m("b", "cpu", "aes-128-cbc", 16, false), m("b", "cpu", "aes-128-cbc", 16384, false),
		m("b", "cpu", "aes-128-cbc", 65536, true), m("a", "soft", "rsa2048", 0, false), m("a", "cpu", "sha256", 64, false)}
	key := func(board, mode, alg string, size int) store.SeriesKey {
		return store.SeriesKey{Board: board, Mode: mode, Algorithm: alg, BlockSize: size}
	}
	if got, want := HistoryChartSeries(ms, nil), []store.SeriesKey{key("a", "cpu", "sha256", 64), key("a", "soft", "rsa2048", 0),
		key("b", "cpu", "aes-128-cbc", 16384)}; !slices.Equal(got, want) {
		t.Errorf("HistoryChartSeries = %v, want %v", got, want)
	}
	if got, want := HistoryChartSeries(ms, []string{"sha256"}), []store.SeriesKey{key("a", "cpu", "sha256", 64)}; !slices.Equal(got, want) {
		t.Errorf("HistoryChartSeries(sha256) = %v, want %v", got, want)
	}
}

// TestAddHistories: a series of two runs gets its chart under its heading; one of a single run has no history.
func TestAddHistories(t *testing.T) {
	two := []store.Measurement{{RunID: 1}, {RunID: 1}, {RunID: 2}}
	one := []store.Measurement{{RunID: 3}, {RunID: 3}}
	var r HTMLReport
	r.AddHistories(map[store.SeriesKey][]store.Measurement{
		{Board: "am64x", Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16384}:  two,
		{Board: "am64x", Mode: "soft", Algorithm: "aes-128-cbc", BlockSize: 16384}: one,
	})
	if want := map[string][]store.Measurement{"am64x cpu aes-128-cbc 16384 B": two}; !reflect.DeepEqual(r.History, want) {
		t.Errorf("History = %v, want %v", r.History, want)
	}
}
