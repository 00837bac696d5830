package store

import (
	"context"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// DropBoards removes boards' parts of a run that refused them before measuring (an algorithm their openssl
// does not have: a usage error, not a result), and the run itself when no board is left, so that the history
// holds nothing of them. It is called after Finish; dropped reports whether the run went too.
func (w *RunWriter) DropBoards(ctx context.Context, boards []string) (dropped bool, err error) {
	if len(boards) == 0 {
		return false, nil
	}
	tx, err := w.db.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("drop refused boards of run %d: %w", w.id, classify(err))
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, b := range boards {
		for _, table := range []string{"measurements", "point_counts", "skips", "raw_outputs", "latest", "leases", "board_runs"} {
			key := b
			if table == "leases" {
				key = protocol.LeaseKey(b, w.host) // local's lease is its host's
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE run_id = ? AND board = ?`, w.id, key); err != nil {
				return false, fmt.Errorf("drop board %s of run %d: %w", b, w.id, classify(err))
			}
		}
	}
	var left int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM board_runs WHERE run_id = ?`, w.id).Scan(&left); err != nil {
		return false, fmt.Errorf("drop refused boards of run %d: %w", w.id, classify(err))
	}
	if left == 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, w.id); err != nil {
			return false, fmt.Errorf("drop run %d: %w", w.id, classify(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("drop refused boards of run %d: %w", w.id, classify(err))
	}
	return left == 0, nil
}
