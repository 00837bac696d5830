package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// BoardPoint is a point of a board, as a reference table gives it.
type BoardPoint struct {
	Board string
	protocol.Point
}

// ErrLabelMeasured means a reference was to be stored under a label that measured runs already have: a label
// must say, alone, whether it names a vendor's figures or measurements.
var ErrLabelMeasured = errors.New("label names measured runs")

// ErrReferenceRun means a reference run was to be judged as a measurement (fleet regress --run LABEL).
var ErrReferenceRun = errors.New("a reference is a vendor's published table, never a measurement to judge: put boards beside it with fleet compare --reference")

// ImportReference stores a vendor's published figures as one run with status protocol.StatusReference, labelled
// info.Label (required) with info.Source as its provenance, all or nothing in one transaction. Its points never
// claim a series' latest pointer, and the store's baselines, history and change queries leave reference runs out:
// a reference is never taken for a measurement. A label already used by measured runs is refused
// (ErrLabelMeasured); importing a label again makes a newer reference run, which ResolveReference then picks.
func (db *DB) ImportReference(ctx context.Context, info RunInfo, points []BoardPoint) (int64, error) {
	if info.Label == "" {
		return 0, fmt.Errorf("import reference: a label is required")
	}
	if len(points) == 0 {
		return 0, fmt.Errorf("import reference %s: no points", info.Label)
	}
	for _, bp := range points {
		if bp.Board == "" {
			return 0, fmt.Errorf("import reference %s: a point without a board", info.Label)
		}
		if err := bp.Point.Validate(); err != nil {
			return 0, fmt.Errorf("import reference %s of %s: %w", info.Label, bp.Board, err)
		}
	}
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE label = ? AND status <> ?`, info.Label,
		protocol.StatusReference).Scan(&n); err != nil {
		return 0, fmt.Errorf("import reference %s in %s: %w", info.Label, db.Path, classify(err))
	}
	if n > 0 {
		return 0, fmt.Errorf("import reference %s in %s: %w (%d of them)", info.Label, db.Path, ErrLabelMeasured, n)
	}
	var id int64
	err := retry(ctx, func() error {
		var err error
		id, err = db.importReferenceOnce(ctx, info, points)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("import reference %s in %s: %w", info.Label, db.Path, fullDisk(db.Path, err))
	}
	return id, nil
}

func (db *DB) importReferenceOnce(ctx context.Context, info RunInfo, points []BoardPoint) (_ int64, err error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", classify(err))
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	started := info.Started
	if started.IsZero() {
		started = db.now()
	}
	w := &RunWriter{db: db, uuid: newRunUUID(), started: formatTime(started), label: info.Label,
		boards: map[string]bool{}, series: map[series]bool{}, reference: true}
	now := formatTime(db.now())
	if err := tx.QueryRowContext(ctx, `INSERT INTO runs (uuid, started, finished, label, tool_version, host,
		command_line, source, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, w.uuid, w.started, now,
		info.Label, info.ToolVersion, info.Host, info.CommandLine, info.Source, protocol.StatusReference).Scan(&w.id); err != nil {
		return 0, fmt.Errorf("begin run: %w", db.explainPermission(ctx, classify(err), accessWrite))
	}
	t := &txWriter{ctx: ctx, tx: tx, w: w}
	var b batch
	for _, bp := range points {
		b.points = append(b.points, boardPoint{bp.Board, bp.Point})
	}
	if err := t.writeBatch(b); err != nil {
		return 0, err
	}
	if err := t.exec(`UPDATE board_runs SET status = ?, finished = ? WHERE run_id = ?`, protocol.StatusReference,
		now, w.id); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit: %w", classify(err))
	}
	return w.id, nil
}

// ResolveReference is the id of the newest reference run labelled label. A label with none wraps ErrNotFound
// and names the reference labels there are.
func (db *DB) ResolveReference(ctx context.Context, label string) (int64, error) {
	var id int64
	err := db.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE label = ? AND status = ?
		ORDER BY started DESC, id DESC LIMIT 1`, label, protocol.StatusReference).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("resolve reference %q in %s: %w", label, db.Path, classify(err))
	}
	labels, lerr := db.referenceLabels(ctx)
	if lerr != nil {
		return 0, lerr
	}
	have := "there are none; fleet import --reference LABEL FILE stores one"
	if len(labels) > 0 {
		have = "references here: " + strings.Join(labels, ", ")
	}
	return 0, fmt.Errorf("no reference labelled %q in %s (%s): %w", label, db.Path, have, ErrNotFound)
}

func (db *DB) referenceLabels(ctx context.Context) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT DISTINCT label FROM runs WHERE status = ? ORDER BY label`,
		protocol.StatusReference)
	if err != nil {
		return nil, fmt.Errorf("list references in %s: %w", db.Path, classify(err))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, fmt.Errorf("list references in %s: %w", db.Path, classify(err))
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Reference returns the newest reference run labelled label with its points: what every front end puts beside
// measured boards.
func (db *DB) Reference(ctx context.Context, label string) (Run, []Measurement, error) {
	id, err := db.ResolveReference(ctx, label)
	if err != nil {
		return Run{}, nil, err
	}
	run, err := db.Run(ctx, id)
	if err != nil {
		return Run{}, nil, err
	}
	ms, err := db.Measurements(ctx, Filter{RunID: id})
	if err != nil {
		return Run{}, nil, err
	}
	return run, ms, nil
}

// ReferenceLabels lists the labels of the reference runs, sorted.
func (db *DB) ReferenceLabels(ctx context.Context) ([]string, error) { return db.referenceLabels(ctx) }
