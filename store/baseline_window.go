package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// labelWindow returns the newest runs (at most limit) labelled label that started before run judged and have a
// valid point of board, oldest first.
func (db *DB) labelWindow(ctx context.Context, label, board string, judged int64, limit int) ([]int64, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT b.run_id FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE b.board = ?1 AND r.label = ?2 AND r.status <> 'reference'
			AND (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?3)
			AND EXISTS (SELECT 1 FROM point_counts c WHERE c.run_id = b.run_id AND c.board = b.board
				AND c.failed = 0 AND c.validity != 'invalid')
		ORDER BY r.started DESC, r.id DESC LIMIT ?4`, board, label, judged, limit)
	if err != nil {
		return nil, fmt.Errorf("find baseline window: %w", classify(err))
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("find baseline window: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find baseline window: %w", classify(err))
	}
	slices.Reverse(out)
	return out, nil
}

// skippedInvalid lists the board runs that ref would have chosen for board but that have invalid points of it
// and none valid: those newer than the oldest chosen baseline run (all of them when there is
// none), before the judged run for "previous" and labels; for a run id, that run when it is such a run. Each is
// "run N: invalid (reasons)"; ids are those runs.
func (db *DB) skippedInvalid(ctx context.Context, ref, board string, judged, chosen int64) (out []string, ids []int64, err error) {
	label, before, only := "", judged, int64(0)
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		if chosen != 0 {
			return nil, nil, nil // a run named by id is never passed over for another
		}
		before, only = 0, id
	} else {
		switch ref {
		case "latest":
			before = 0
		case "previous":
		default:
			label = ref
		}
	}
	rows, err := db.db.QueryContext(ctx, `SELECT b.run_id, b.validity_reasons FROM board_runs b JOIN runs r ON r.id = b.run_id
		WHERE b.board = ?1 AND (?2 = '' OR r.label = ?2) AND r.id != ?5 AND (?6 = 0 OR r.id = ?6)
			AND r.status <> 'reference'
			AND (?3 = 0 OR (r.started, r.id) < (SELECT started, id FROM runs WHERE id = ?3))
			AND (?4 = 0 OR (r.started, r.id) > (SELECT started, id FROM runs WHERE id = ?4))
			AND (b.validity = 'invalid' OR EXISTS (SELECT 1 FROM point_counts c WHERE c.run_id = b.run_id AND c.board = b.board
				AND c.validity = 'invalid'))
			AND NOT EXISTS (SELECT 1 FROM point_counts c WHERE c.run_id = b.run_id AND c.board = b.board
				AND c.failed = 0 AND c.validity != 'invalid')
		ORDER BY r.started DESC, r.id DESC`, board, label, before, chosen, judged, only)
	if err != nil {
		return nil, nil, fmt.Errorf("find invalid runs: %w", classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var reasons sql.NullString
		if err := rows.Scan(&id, &reasons); err != nil {
			return nil, nil, fmt.Errorf("find invalid runs: %w", err)
		}
		var rs []string
		if reasons.Valid {
			_ = json.Unmarshal([]byte(reasons.String), &rs) // the reasons are for people; a bad list is left out
		}
		s := fmt.Sprintf("run %d: invalid", id)
		if len(rs) > 0 {
			s += " (" + strings.Join(rs, "; ") + ")"
		}
		out, ids = append(out, s), append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("find invalid runs: %w", classify(err))
	}
	return out, ids, nil
}
