package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// LatestFacts returns the newest facts probed on a board and when its part of that run started.
// A board never probed gives nil facts, the zero time and no error.
func (db *DB) LatestFacts(ctx context.Context, board string) (*protocol.Facts, time.Time, error) {
	var facts, started sql.NullString
	err := db.db.QueryRowContext(ctx, `SELECT b.facts, b.started FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE b.board = ? AND b.facts IS NOT NULL ORDER BY r.started DESC, r.id DESC LIMIT 1`, board).
		Scan(&facts, &started)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read facts of %s: %w", board, classify(err))
	}
	f := new(protocol.Facts)
	if err := json.Unmarshal([]byte(facts.String), f); err != nil {
		return nil, time.Time{}, fmt.Errorf("read facts of %s: %w", board, err)
	}
	t, err := parseTime(started)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read facts of %s: %w", board, err)
	}
	return f, t, nil
}

// FactsOfRuns returns the facts probed on board in each of the runs that has them, by run id: with History,
// it shows where the kernel, OpenSSL or CPU governor changed along a series.
func (db *DB) FactsOfRuns(ctx context.Context, board string, runIDs []int64) (map[int64]*protocol.Facts, error) {
	out := map[int64]*protocol.Facts{}
	for len(runIDs) > 0 {
		n := min(len(runIDs), 500)
		args := []any{board}
		for _, id := range runIDs[:n] {
			args = append(args, id)
		}
		if err := db.readFacts(ctx, out, `SELECT run_id, facts FROM board_runs WHERE board = ? AND facts IS NOT NULL
			AND run_id IN (`+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+`)`, args...); err != nil {
			return nil, fmt.Errorf("read facts of %s: %w", board, err)
		}
		runIDs = runIDs[n:]
	}
	return out, nil
}

func (db *DB) readFacts(ctx context.Context, out map[int64]*protocol.Facts, query string, args ...any) error {
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var js string
		if err := rows.Scan(&id, &js); err != nil {
			return err
		}
		f := new(protocol.Facts)
		if err := json.Unmarshal([]byte(js), f); err != nil {
			return fmt.Errorf("run %d: %w", id, err)
		}
		out[id] = f
	}
	return classify(rows.Err())
}
