package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// historyKeysPerQuery bounds the series one query of HistoryOfEach asks for: at most 9 arguments each, far
// below the bound of either database on a statement's parameters.
const historyKeysPerQuery = 200

// HistoryOfEach is History of every key in one call: each series' points, oldest run first, by key; a key no
// point matches is absent. It reads all of them in one query (per historyKeysPerQuery keys), where a caller
// looping over History would pay a round trip per series: fleet report charts every (board, mode, algorithm).
func (db *DB) HistoryOfEach(ctx context.Context, keys []SeriesKey) (map[SeriesKey][]Measurement, error) {
	out := map[SeriesKey][]Measurement{}
	for _, k := range keys {
		if k.Board == "" || k.Mode == "" || k.Algorithm == "" {
			return nil, fmt.Errorf("read history: board, mode and algorithm are required")
		}
	}
	for start := 0; start < len(keys); start += historyKeysPerQuery {
		chunk := keys[start:min(start+historyKeysPerQuery, len(keys))]
		var series []string
		args := []any{string(protocol.StatusReference)} // a vendor's published figures are never history
		for _, k := range chunk {
			w := seriesConds(k)
			series = append(series, "("+joinConds(w.conds)+")")
			args = append(args, w.args...)
		}
		ms, err := db.queryMeasurements(ctx, "read histories", `SELECT `+measurementCols+fromBoardRuns+
			` WHERE r.status <> ? AND (`+strings.Join(series, " OR ")+`) ORDER BY r.started, r.id, m.id`, args...)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			for _, k := range chunk {
				if k.matches(m) {
					out[k] = append(out[k], m)
				}
			}
		}
	}
	return out, nil
}

// matches tells whether m is a point of the series k, as seriesConds selects them.
func (k SeriesKey) matches(m Measurement) bool {
	return m.Board == k.Board && m.Mode == k.Mode && m.Algorithm == k.Algorithm && m.BlockSize == k.BlockSize &&
		(k.Threads == 0 || m.Threads == k.Threads) && (k.Op == "" || m.Op == k.Op) &&
		(k.KeyBits == 0 || m.KeyBits == k.KeyBits) && (k.Curve == "" || m.Curve == k.Curve)
}
