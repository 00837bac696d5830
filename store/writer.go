package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Batching defaults: points are committed every defaultBatchSize points or defaultBatchDelay after the first
// uncommitted one, whichever comes first, so a controller that dies loses at most the batch in flight.
const (
	defaultBatchSize  = 50
	defaultBatchDelay = 250 * time.Millisecond
)

// ErrRunFinished is returned by a RunWriter used after Finish.
var ErrRunFinished = errors.New("run already finished")

// RunWriter stores one run as it streams. Its method set is fleet.Sink's; it is safe for concurrent use by
// many boards. Writes complete even when ctx is cancelled: what was measured before a Ctrl-C is still stored,
// and busy_timeout bounds how long a write can wait. Once BeginRun's ctx is cancelled, writes wait at most
// FinalWriteGrace in all for a database that does not answer. A write that cannot reach the database is tried
// again for DB.OutageRetry (a server restart); one that finally fails makes Finish fail the run.
type RunWriter struct {
	db      *DB
	id      int64
	uuid    string
	started string // the run's start, which decides the latest point of a series
	label   string // the run's label and controller host, shown to runs waiting for a board it holds
	host    string
	// reference: a vendor's published table (StatusReference), whose points never claim a series' latest
	// pointer, so that "latest" and everything built on it only ever see measurements.
	reference bool

	// life is BeginRun's ctx: a write is not cancelled with it, but FinalWriteGrace after it or after the write
	// began, whichever is later (writeCtx). nil for a writer of an import or a copy.
	life context.Context

	mu     sync.Mutex
	batch  batch
	timer  *time.Timer
	boards map[string]bool // board_runs rows already committed
	series map[series]bool // series whose latest pointer this run has already claimed (committed)
	err    error           // the first failed write; every later call returns it
	done   bool
	size   int
	delay  time.Duration
}

// batch holds what arrived since the last commit.
type batch struct {
	points []boardPoint
	skips  []boardSkip
	raws   []boardRaw
}

type boardPoint struct {
	board string
	p     protocol.Point
}

type boardSkip struct {
	board string
	s     protocol.Skip
}

type boardRaw struct {
	board string
	r     protocol.Raw
}

func (b *batch) empty() bool { return len(b.points) == 0 && len(b.skips) == 0 && len(b.raws) == 0 }

// BeginRun records a new run with status running and returns the writer for it.
func (db *DB) BeginRun(ctx context.Context, info RunInfo) (*RunWriter, error) {
	started := info.Started
	if started.IsZero() {
		started = db.now()
	}
	w := &RunWriter{db: db, started: formatTime(started), label: info.Label, host: info.Host, boards: map[string]bool{}, series: map[series]bool{},
		size: db.BatchSize, delay: db.BatchDelay}
	if w.size <= 0 {
		w.size = defaultBatchSize
	}
	if w.delay <= 0 {
		w.delay = defaultBatchDelay
	}
	// the store keeps what every caller promises: a label that can name runs (the CLI checks flags; library
	// callers and imports must not slip one past)
	if err := CheckLabel(info.Label); err != nil {
		return nil, fmt.Errorf("begin run in %s: %w", db.Path, err)
	}
	if err := db.checkMeasuredLabel(ctx, info.Label); err != nil {
		return nil, fmt.Errorf("begin run in %s: %w", db.Path, err)
	}
	var err error
	if w.uuid, err = checkRunUUID(info.UUID); err != nil {
		return nil, fmt.Errorf("begin run in %s: %w", db.Path, err)
	}
	// RETURNING, not LastInsertId: PostgreSQL's driver has no LastInsertId, both databases have RETURNING.
	err = db.db.QueryRowContext(context.WithoutCancel(ctx), `INSERT INTO runs
		(uuid, started, label, tool_version, host, command_line, source, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING id`, w.uuid, w.started, info.Label, info.ToolVersion, info.Host, info.CommandLine, info.Source,
		protocol.StatusRunning).Scan(&w.id)
	if err != nil {
		return nil, fmt.Errorf("begin run in %s: %w", db.Path, db.explainPermission(ctx, classify(err), accessWrite))
	}
	w.life = ctx
	return w, nil
}

// RunID is the id of the run being written.
func (w *RunWriter) RunID() int64 { return w.id }

// UUID is the run's UUID, which names it in every database it is copied to.
func (w *RunWriter) UUID() string { return w.uuid }

// BoardStarted records that a board's part of the run began.
func (w *RunWriter) BoardStarted(ctx context.Context, board string) error {
	if board == "" {
		return fmt.Errorf("start board: empty board name")
	}
	return w.commitWith(ctx, "start board "+board, func(t *txWriter) error {
		return t.ensureBoard(board)
	})
}

// BoardFacts stores what the probe found on a board.
func (w *RunWriter) BoardFacts(ctx context.Context, board string, facts protocol.Facts) error {
	if board == "" {
		return fmt.Errorf("store facts: empty board name")
	}
	js, err := json.Marshal(facts)
	if err != nil {
		return fmt.Errorf("store facts of %s: %w", board, err)
	}
	return w.commitWith(ctx, "store facts of "+board, func(t *txWriter) error {
		if err := t.ensureBoard(board); err != nil {
			return err
		}
		return t.exec(`UPDATE board_runs SET facts = ? WHERE run_id = ? AND board = ?`, string(js), w.id, board)
	})
}

// Point buffers one measurement; it is committed with its batch. A point no measurement can have
// (NaN, negative, no mode) is refused here, so it never spoils the batch it would have joined.
func (w *RunWriter) Point(ctx context.Context, board string, p protocol.Point) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("store point of %s: %w", board, err)
	}
	return w.add(ctx, board, func(b *batch) { b.points = append(b.points, boardPoint{board, p}) })
}

// Skip buffers a mode or algorithm that was not measured, with the reason.
func (w *RunWriter) Skip(ctx context.Context, board string, s protocol.Skip) error {
	return w.add(ctx, board, func(b *batch) { b.skips = append(b.skips, boardSkip{board, s}) })
}

// Raw buffers one tool output.
func (w *RunWriter) Raw(ctx context.Context, board string, r protocol.Raw) error {
	return w.add(ctx, board, func(b *batch) { b.raws = append(b.raws, boardRaw{board, r}) })
}

// BoardKernel stores the kernel's health over the board's sweep.
func (w *RunWriter) BoardKernel(ctx context.Context, board string, h protocol.KernelHealth) error {
	if board == "" {
		return fmt.Errorf("store kernel health: empty board name")
	}
	js, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("store kernel health of %s: %w", board, err)
	}
	return w.commitWith(ctx, "store kernel health of "+board, func(t *txWriter) error {
		if err := t.ensureBoard(board); err != nil {
			return err
		}
		return t.exec(`UPDATE board_runs SET kernel = ? WHERE run_id = ? AND board = ?`, string(js), w.id, board)
	})
}

// BoardFinished commits the board's pending results and ends its part of the run with status and cause.
func (w *RunWriter) BoardFinished(ctx context.Context, board string, status protocol.Status, cause string) error {
	if board == "" {
		return fmt.Errorf("finish board: empty board name")
	}
	if status == "" || status == protocol.StatusRunning {
		return fmt.Errorf("finish board %s: invalid status %q", board, status)
	}
	return w.commitWith(ctx, "finish board "+board, func(t *txWriter) error {
		if err := t.ensureBoard(board); err != nil {
			return err
		}
		return t.exec(`UPDATE board_runs SET status = ?, error = ?, finished = ? WHERE run_id = ? AND board = ?`,
			status, cause, formatTime(w.db.now()), w.id, board)
	})
}

// Finish commits everything pending, sets the run's status and finished time and releases the board leases the
// run still holds (a controller that ends on an error keeps no board). Boards never finished are
// marked failed (or interrupted, when the run was). A run never finished stays running: an incomplete run.
func (w *RunWriter) Finish(ctx context.Context, status protocol.Status) error {
	switch status {
	case protocol.StatusOK, protocol.StatusPartial, protocol.StatusFailed, protocol.StatusInterrupted, protocol.StatusImported:
	default:
		return fmt.Errorf("finish run %d: invalid status %q", w.id, status)
	}
	boardStatus, cause := protocol.StatusFailed, "run finished before the board did"
	if status == protocol.StatusInterrupted {
		boardStatus, cause = protocol.StatusInterrupted, "interrupted"
	}
	w.mu.Lock()
	if w.err != nil && !w.done {
		defer w.mu.Unlock()
		w.done = true
		err := fmt.Errorf("run %d in %s: an earlier write failed: %w", w.id, w.db.Path, w.err)
		if errors.Is(w.err, ErrWritesStuck) {
			return err // the grace is over: nothing more can be written
		}
		if ferr := w.failRunLocked(status); ferr != nil {
			return fmt.Errorf("%w; marking the run failed failed too, it stays incomplete (running): %v", err, ferr)
		}
		return fmt.Errorf("%w (the run is marked failed and its boards released)", err)
	}
	w.mu.Unlock()
	err := w.commitWith(ctx, fmt.Sprintf("finish run %d", w.id), func(t *txWriter) error {
		now := formatTime(w.db.now())
		if err := t.exec(`UPDATE board_runs SET status = ?, error = ?, finished = ?
			WHERE run_id = ? AND status = ?`, boardStatus, cause, now, w.id, protocol.StatusRunning); err != nil {
			return err
		}
		// a run that ends holds no board, whatever became of its boards' own releases
		if err := t.releaseRunLeases(w.id); err != nil {
			return err
		}
		return t.exec(`UPDATE runs SET status = ?, finished = ? WHERE id = ?`, status, now, w.id)
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		w.done = true
	}
	return err
}

// add appends to the batch and commits it when it is full; the first item of a batch starts its timer.
func (w *RunWriter) add(ctx context.Context, board string, f func(*batch)) error {
	if board == "" {
		return fmt.Errorf("store result: empty board name")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usableLocked(); err != nil {
		return err
	}
	first := w.batch.empty()
	f(&w.batch)
	if len(w.batch.points) >= w.size {
		return w.flushLocked(ctx, "store batch", nil)
	}
	if first && w.timer == nil {
		w.timer = time.AfterFunc(w.delay, w.flushTimer)
	}
	return nil
}

// flushTimer commits a batch that has waited long enough. Its error, if any, is returned by the next call.
func (w *RunWriter) flushTimer() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = nil
	if w.usableLocked() != nil || w.batch.empty() {
		return
	}
	w.flushLocked(context.Background(), "store batch", nil) // sets w.err on failure
}

// commitWith commits the pending batch together with extra statements in one transaction.
func (w *RunWriter) commitWith(ctx context.Context, op string, extra func(*txWriter) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usableLocked(); err != nil {
		return err
	}
	return w.flushLocked(ctx, op, extra)
}

func (w *RunWriter) usableLocked() error {
	if w.done {
		return fmt.Errorf("run %d: %w", w.id, ErrRunFinished)
	}
	if w.err != nil {
		return fmt.Errorf("run %d in %s: an earlier write failed: %w", w.id, w.db.Path, w.err)
	}
	return nil
}

// flushLocked writes the batch and extra in one transaction. On failure nothing of it is stored, and the
// writer refuses further work: the run stays running, so it shows as incomplete.
func (w *RunWriter) flushLocked(ctx context.Context, op string, extra func(*txWriter) error) error {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	b := w.batch
	w.batch = batch{}
	wctx, end := w.writeCtx()
	defer end()
	t, err := w.writeTx(wctx, b, extra)
	if err != nil {
		w.err = fmt.Errorf("%s: %w", op, err)
		return fmt.Errorf("run %d in %s: %w", w.id, w.db.Path, w.err)
	}
	for _, board := range t.created {
		w.boards[board] = true
	}
	for _, k := range t.series {
		w.series[k] = true
	}
	return nil
}

// writeCtx is the context of one write of the writer's: not cancelled with BeginRun's ctx but FinalWriteGrace
// after it, or after the write began when that is later. The grace bounds how long a database that stopped
// answering keeps an interrupted fleet, and it is the database's: a run whose boards took longer than the grace
// to stop after Ctrl-C (a push cut over a slow link on a busy machine) had its final write refused by a clock
// started at the interrupt, and stayed "running" in a healthy database. A write that is stuck sets the writer's
// error, so every later one is refused at once: the grace is spent once, not once a write. A writer of an
// import or a copy writes in the caller's transaction: never cancelled.
func (w *RunWriter) writeCtx() (context.Context, context.CancelFunc) {
	if w.life == nil {
		return context.Background(), func() {}
	}
	return Outlive(w.life, FinalWriteGrace)
}
