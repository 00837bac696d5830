package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// A run whose controller was killed outright keeps status running until another run takes one of its boards
// (takeOverGone). A reader (the dashboard) must not show it as "running for 3 days" meanwhile, and must not
// guess either: the same evidence AcquireLease acts on decides. A controller holds a board's lease before the
// board's row is started and gives it back only after the row is finished (fleet's runBoard), so a board row
// still running without its run's live lease means the controller is gone:
//   - the board's lease is missing or another run's (it expired and was taken, or was deleted);
//   - the lease has expired (its holder stopped renewing it);
//   - the holder is of this process's space and its PID is gone (holderGone).
// A run with no board in progress (waiting for a lease, between boards) is judged by its leases alone, and one
// holding none cannot be told from a run still waiting: it stays running. An import (Source set) holds no
// lease by design and is never judged.

// GoneRuns returns, for each run of rs still marked running whose controller is gone, why it is known to be:
// "its lease of am64x expired at 2026-12-01 03:14:07 UTC", "its controller (pid 4711 on ci-3) is gone". Runs
// not in the map are running as far as the database can tell, or not running at all.
func (db *DB) GoneRuns(ctx context.Context, rs []Run) (map[int64]string, error) {
	var running []Run
	for _, r := range rs {
		if r.Status == protocol.StatusRunning && r.Source == "" {
			running = append(running, r)
		}
	}
	if len(running) == 0 {
		return nil, nil
	}
	leases, err := db.Leases(ctx)
	if err != nil {
		return nil, err
	}
	boards, err := db.runningBoards(ctx, running)
	if err != nil {
		return nil, err
	}
	byKey := map[string]protocol.Lease{}
	for _, l := range leases {
		byKey[l.Board] = l
	}
	asker := protocol.Lease{PIDSpace: processSpace()}
	out := map[int64]string{}
	for _, r := range running {
		if why := runGone(r, boards[r.ID], byKey, leases, asker); why != "" {
			out[r.ID] = why
		}
	}
	return out, nil
}

// runGone is GoneRuns' verdict on one run: "" while it may be alive.
func runGone(r Run, boards []string, byKey map[string]protocol.Lease, leases []protocol.Lease, asker protocol.Lease) string {
	dead := func(l protocol.Lease) string {
		switch {
		case l.Expired:
			return fmt.Sprintf("its lease of %s expired at %s UTC", l.Board, l.Expires.UTC().Format("2006-01-02 15:04:05"))
		case holderGone(l, asker):
			return fmt.Sprintf("its controller (pid %d on %s) is gone", l.PID, l.Host)
		}
		return ""
	}
	for _, b := range boards {
		l, ok := byKey[protocol.LeaseKey(b, r.Host)]
		switch {
		case !ok:
			return fmt.Sprintf("%s is still marked running but its lease is gone", b)
		case l.RunID != r.ID:
			return fmt.Sprintf("%s is still marked running but run %d holds its lease", b, l.RunID)
		}
		if why := dead(l); why != "" {
			return why
		}
	}
	for _, l := range leases {
		if l.RunID == r.ID {
			if why := dead(l); why != "" {
				return why
			}
		}
	}
	return ""
}

// runningBoards lists, per run, its boards whose rows are still running.
func (db *DB) runningBoards(ctx context.Context, rs []Run) (map[int64][]string, error) {
	args := []any{protocol.StatusRunning}
	marks := make([]string, len(rs))
	for i, r := range rs {
		marks[i], args = "?", append(args, r.ID)
	}
	rows, err := db.db.QueryContext(ctx, `SELECT run_id, board FROM board_runs WHERE status = ? AND run_id IN (`+
		strings.Join(marks, ", ")+`) ORDER BY run_id, board`, args...)
	if err != nil {
		return nil, fmt.Errorf("read running boards in %s: %w", db.Path, classify(err))
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var board string
		if err := rows.Scan(&id, &board); err != nil {
			return nil, fmt.Errorf("read running boards in %s: %w", db.Path, classify(err))
		}
		out[id] = append(out[id], board)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read running boards in %s: %w", db.Path, classify(err))
	}
	return out, nil
}
