package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// RawOutputs returns the tool outputs stored for a run, for one board or ("") all, by board and raw id.
func (db *DB) RawOutputs(ctx context.Context, runID int64, board string) ([]RawOutput, error) {
	if err := db.checkRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT board, raw_id, command, env, stdout, stderr, exit
		FROM raw_outputs WHERE run_id = ?1 AND (?2 = '' OR board = ?2) ORDER BY board, raw_id`, runID, board)
	if err != nil {
		return nil, fmt.Errorf("read raw outputs of run %d: %w", runID, classify(err))
	}
	defer rows.Close()
	var out []RawOutput
	for rows.Next() {
		o := RawOutput{RunID: runID}
		var command string
		var env sql.NullString
		if err := rows.Scan(&o.Board, &o.ID, &command, &env, &o.Stdout, &o.Stderr, &o.Exit); err != nil {
			return nil, fmt.Errorf("read raw outputs of run %d: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(command), &o.Command); err != nil {
			return nil, fmt.Errorf("read raw output %d of %s: command: %w", o.ID, o.Board, err)
		}
		if env.Valid {
			if err := json.Unmarshal([]byte(env.String), &o.Env); err != nil {
				return nil, fmt.Errorf("read raw output %d of %s: env: %w", o.ID, o.Board, err)
			}
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read raw outputs of run %d: %w", runID, classify(err))
	}
	return out, nil
}
