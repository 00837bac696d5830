package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// HistoryChartSeries are the series fleet report charts over history beside a run's tables: per board, mode and
// algorithm (those of algs, or all when algs is empty) the largest block size ms measured, where accelerators
// matter; failed points name none. In board, mode, algorithm order.
func HistoryChartSeries(ms []store.Measurement, algs []string) []store.SeriesKey {
	type series struct{ board, mode, alg string }
	largest := map[series]int{}
	for _, m := range ms {
		if m.Failed || (len(algs) > 0 && !slices.Contains(algs, m.Algorithm)) {
			continue
		}
		k := series{m.Board, m.Mode, m.Algorithm}
		if size, ok := largest[k]; !ok || m.BlockSize > size {
			largest[k] = m.BlockSize
		}
	}
	keys := make([]store.SeriesKey, 0, len(largest))
	for k, size := range largest {
		keys = append(keys, store.SeriesKey{Board: k.board, Mode: k.mode, Algorithm: k.alg, BlockSize: size})
	}
	slices.SortFunc(keys, func(a, b store.SeriesKey) int {
		return cmp.Or(strings.Compare(a.Board, b.Board), strings.Compare(a.Mode, b.Mode), strings.Compare(a.Algorithm, b.Algorithm))
	})
	return keys
}

// AddHistories gives each series of hist (the store's HistoryOfEach of HistoryChartSeries) its chart in the report,
// headed "am64x cpu aes-128-cbc 16384 B"; a series measured in one run only has no history to draw and is left
// out.
func (r *HTMLReport) AddHistories(hist map[store.SeriesKey][]store.Measurement) {
	for k, h := range hist {
		runs := map[int64]bool{}
		for _, m := range h {
			runs[m.RunID] = true
		}
		if len(runs) < 2 {
			continue
		}
		if r.History == nil {
			r.History = map[string][]store.Measurement{}
		}
		r.History[fmt.Sprintf("%s %s %s %d B", k.Board, k.Mode, k.Algorithm, k.BlockSize)] = h
	}
}
