package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// ImportTx writes imported runs — one or several, from one or several captures — in a single transaction, so
// that an import is all or nothing: nothing of it is visible until Commit, and a failed write (a full disk),
// a cancelled ctx (Ctrl-C) or Rollback leave nothing behind, not even an incomplete run. Unlike RunWriter,
// which commits as it goes so that a crashed `fleet run` keeps what it measured, an import can always be run
// again from its files.
//
// The transaction holds the database's write lock until it ends: another process writing the same database
// waits (busy_timeout, 10 s) and a `fleet run` batch fails if an import takes longer than that. Points are
// inserted in batches as they come, so memory stays bounded whatever the size of the import.
//
// Use: BeginImport, then for each run StartRun, Raw/Skip/Point, EndRun; then Commit, or Rollback on any error.
// An ImportTx is not safe for concurrent use.
type ImportTx struct {
	db   *DB
	ctx  context.Context
	tx   *sqlTx
	info RunInfo
	run  *RunWriter // the run being written: its id, start, board and the series it claimed (no batching)
	brd  string
	b    batch
	err  error // the first failed write: every later call returns it
	done bool
}

// BeginImport starts the transaction of an import; info is what every run of it shares (Source is set per run
// by StartRun). ctx bounds the whole transaction: when it is cancelled, the transaction rolls back.
func (db *DB) BeginImport(ctx context.Context, info RunInfo) (*ImportTx, error) {
	if err := CheckLabel(info.Label); err != nil {
		return nil, fmt.Errorf("begin import in %s: %w", db.Path, err)
	}
	if err := db.checkMeasuredLabel(ctx, info.Label); err != nil {
		return nil, fmt.Errorf("begin import in %s: %w", db.Path, err)
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin import in %s: %w", db.Path, fullDisk(db.Path, classify(err)))
	}
	return &ImportTx{db: db, ctx: ctx, tx: tx, info: info}, nil
}

// StartRun begins a run of board with the given source (e.g. "imported from /abs/capture.txt"). The previous
// run must have ended.
func (t *ImportTx) StartRun(ctx context.Context, board, source string) error {
	if err := t.usable(); err != nil {
		return err
	}
	if t.run != nil {
		return t.fail(fmt.Errorf("start run of %s: run %d has not ended", board, t.run.id))
	}
	if board == "" {
		return t.fail(fmt.Errorf("start run: empty board name"))
	}
	started := t.info.Started
	if started.IsZero() {
		started = t.db.now()
	}
	w := &RunWriter{db: t.db, uuid: newRunUUID(), started: formatTime(started), boards: map[string]bool{},
		series: map[series]bool{}}
	err := t.tx.QueryRowContext(t.ctx, `INSERT INTO runs (uuid, started, label, tool_version, host, command_line,
		source, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, w.uuid, w.started, t.info.Label,
		t.info.ToolVersion, t.info.Host, t.info.CommandLine, source, protocol.StatusRunning).Scan(&w.id)
	if err != nil {
		return t.fail(fmt.Errorf("begin run: %w", t.db.explainPermission(t.ctx, classify(err), accessWrite)))
	}
	t.run, t.brd = w, board
	return t.write(nil, func(tw *txWriter) error { return tw.ensureBoard(board) })
}

// Raw stores one tool output of the run.
func (t *ImportTx) Raw(ctx context.Context, r protocol.Raw) error {
	if err := t.inRun("store raw output"); err != nil {
		return err
	}
	return t.write(&batch{raws: []boardRaw{{t.brd, r}}}, nil)
}

// Skip stores a mode or algorithm the capture did not measure, with the reason.
func (t *ImportTx) Skip(ctx context.Context, s protocol.Skip) error {
	if err := t.inRun("store skip"); err != nil {
		return err
	}
	return t.write(&batch{skips: []boardSkip{{t.brd, s}}}, nil)
}

// Point stores one measurement; it is refused (and the import fails) when no measurement can have it.
func (t *ImportTx) Point(ctx context.Context, p protocol.Point) error {
	if err := t.inRun("store point"); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return t.fail(fmt.Errorf("store point of %s: %w", t.brd, err))
	}
	t.b.points = append(t.b.points, boardPoint{t.brd, p})
	if len(t.b.points) < maxRowsPerInsert {
		return nil
	}
	return t.flush()
}

// Facts stores what the captures say about the board (the OpenSSL environment they show) as the board run's
// facts.
func (t *ImportTx) Facts(ctx context.Context, f protocol.Facts) error {
	if err := t.inRun("store facts"); err != nil {
		return err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return t.fail(fmt.Errorf("store facts of %s: %w", t.brd, err))
	}
	id, board := t.run.id, t.brd
	return t.write(nil, func(tw *txWriter) error {
		return tw.exec(`UPDATE board_runs SET facts = ? WHERE run_id = ? AND board = ?`, string(b), id, board)
	})
}

// EndRun writes what is pending and ends the run: the board with status and cause, the run as imported.
// It returns the run's id, final once the import commits.
func (t *ImportTx) EndRun(ctx context.Context, status protocol.Status, cause string) (int64, error) {
	if err := t.inRun("end run"); err != nil {
		return 0, err
	}
	if status == "" || status == protocol.StatusRunning {
		return 0, t.fail(fmt.Errorf("end run of %s: invalid status %q", t.brd, status))
	}
	if err := t.flush(); err != nil {
		return 0, err
	}
	id := t.run.id
	err := t.write(nil, func(tw *txWriter) error {
		now := formatTime(t.db.now())
		if err := tw.exec(`UPDATE board_runs SET status = ?, error = ?, finished = ? WHERE run_id = ? AND board = ?`,
			status, cause, now, id, t.brd); err != nil {
			return err
		}
		return tw.exec(`UPDATE runs SET status = ?, finished = ? WHERE id = ?`, protocol.StatusImported, now, id)
	})
	t.run, t.brd = nil, ""
	return id, err
}

// Commit makes the import visible. A run not ended is an error, and the import rolls back.
func (t *ImportTx) Commit() error {
	if err := t.usable(); err != nil {
		t.Rollback()
		return err
	}
	if t.run != nil {
		err := t.fail(fmt.Errorf("commit: run %d has not ended", t.run.id))
		t.Rollback()
		return err
	}
	t.done = true
	if err := t.tx.Commit(); err != nil {
		if ctxErr := t.ctx.Err(); ctxErr != nil {
			return fmt.Errorf("write %s: %w", t.db.Path, ctxErr)
		}
		return fmt.Errorf("write %s: commit: %w", t.db.Path, fullDisk(t.db.Path, classify(err)))
	}
	return nil
}

// Rollback discards the import. It is safe to call after Commit or a failure (it then does nothing).
func (t *ImportTx) Rollback() error {
	t.done = true
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("roll back import in %s: %w", t.db.Path, err)
	}
	return nil
}

func (t *ImportTx) usable() error {
	if t.err != nil {
		return t.err
	}
	if t.done {
		return fmt.Errorf("write %s: %w", t.db.Path, sql.ErrTxDone)
	}
	return nil
}

func (t *ImportTx) inRun(op string) error {
	if err := t.usable(); err != nil {
		return err
	}
	if t.run == nil {
		return t.fail(fmt.Errorf("%s: no run started", op))
	}
	return nil
}

// fail records the first error; the import can then only roll back. A cancelled ctx is reported as such, not
// as the interrupted statement it caused.
func (t *ImportTx) fail(err error) error {
	if t.err == nil {
		if ctxErr := t.ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		t.err = fmt.Errorf("write %s: %w", t.db.Path, fullDisk(t.db.Path, err))
	}
	return t.err
}

// flush inserts the pending points.
func (t *ImportTx) flush() error {
	if len(t.b.points) == 0 {
		return nil
	}
	b := t.b
	t.b = batch{}
	return t.write(&b, nil)
}

// write runs b and extra inside the import's transaction, as RunWriter does in its own.
func (t *ImportTx) write(b *batch, extra func(*txWriter) error) error {
	tw := &txWriter{ctx: t.ctx, tx: t.tx, w: t.run}
	if b != nil {
		if err := tw.writeBatch(*b); err != nil {
			return t.fail(err)
		}
	}
	if extra != nil {
		if err := extra(tw); err != nil {
			return t.fail(err)
		}
	}
	for _, board := range tw.created {
		t.run.boards[board] = true
	}
	for _, k := range tw.series {
		t.run.series[k] = true
	}
	return nil
}
