package store

import (
	"context"
	"fmt"
)

// SeriesKeys lists every series ever measured (board, mode, algorithm, block size, threads, op, key bits,
// curve), from the small table of latest points: what a history can be drawn for, without scanning history.
func (db *DB) SeriesKeys(ctx context.Context) ([]SeriesKey, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT board, mode, algorithm, block_size, threads, op, key_bits, curve
		FROM latest ORDER BY board, mode, algorithm, block_size, threads, op, key_bits, curve`)
	if err != nil {
		return nil, fmt.Errorf("list series in %s: %w", db.Path, classify(err))
	}
	defer rows.Close()
	var out []SeriesKey
	for rows.Next() {
		var k SeriesKey
		if err := rows.Scan(&k.Board, &k.Mode, &k.Algorithm, &k.BlockSize, &k.Threads, &k.Op, &k.KeyBits, &k.Curve); err != nil {
			return nil, fmt.Errorf("list series in %s: %w", db.Path, err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list series in %s: %w", db.Path, classify(err))
	}
	return out, nil
}
