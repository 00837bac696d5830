package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// measurementCols are read by scanMeasurement, in this order; m is measurements, r its run. pointCols, the
// same without the run's columns, are read by scanPoint.
const (
	measurementCols = `m.id, m.run_id, r.label, r.started, r.tool_version, ` + pointOwnCols
	pointCols       = `m.id, m.run_id, ` + pointOwnCols
	pointOwnCols    = `m.board, m.mode, m.algorithm, m.op, m.block_size,
	m.key_bits, m.curve, m.threads, m.repeat, m.engine, m.driver, m.count, m.seconds, m.timing, m.wall_est_s,
	m.bytes_per_sec, m.ops_per_sec, m.wall_s, m.user_s, m.sys_s, m.cpu_pct, m.sys_busy_pct, m.irq_delta, m.failed,
	m.error, m.flags, m.raw_id, m.line, m.validity, m.validity_reasons, m.evidence, m.published_min, m.published_max, m.verification, m.verification_detail,
	m.cpus, m.cluster, m.pinned_busy_pct, m.other_busy_pct,
	m.energy_j, m.power_w, m.energy_samples, m.energy_uj_per_byte, m.energy_unknown`
)

// regressionCols are read by scanRegression, in this order, with Filter.ForRegression: of pointCols, those a
// regression check reads (report.Regress, Group, currentSegment, Confirm).
const regressionCols = `m.id, m.run_id, m.board, m.mode, m.algorithm, m.op, m.block_size, m.key_bits, m.curve, m.threads,
	m.driver, m.timing, m.bytes_per_sec, m.ops_per_sec, m.cpu_pct, m.failed, m.error, m.flags, m.validity,
	m.validity_reasons, m.verification, m.verification_detail, m.cluster, m.cpus, m.energy_uj_per_byte, m.energy_unknown`

// scanRegression reads the regressionCols of one row into m.
func scanRegression(rows *sql.Rows, m *Measurement) error {
	var flags, reasons sql.NullString
	var ujPerByte sql.NullFloat64 // fleet regress --metric energy judges it
	p := &m.Point
	if err := rows.Scan(&m.ID, &m.RunID, &m.Board, &p.Mode, &p.Algorithm, &p.Op, &p.BlockSize, &p.KeyBits, &p.Curve,
		&p.Threads, &p.Driver, &p.Timing, &p.BytesPerSec, &p.OpsPerSec, &p.CPUPct, &p.Failed, &p.Error, &flags,
		&p.Validity, &reasons, &p.Verification, &p.VerificationDetail, &p.Cluster, &p.CPUs, &ujPerByte,
		&p.EnergyUnknown); err != nil {
		return err
	}
	p.EnergyUJPerByte = nullFloat(ujPerByte)
	if flags.Valid {
		if err := json.Unmarshal([]byte(flags.String), &p.Flags); err != nil {
			return fmt.Errorf("measurement %d flags: %w", m.ID, err)
		}
	}
	return scanValidity(m.ID, p, reasons, sql.NullString{})
}

// Measurements returns the points matching f, oldest run first, each run's points in arrival order.
// With f.Latest it reads, per board, the newest run that has points of that board (with f.Label, the newest
// such run with that label).
func (db *DB) Measurements(ctx context.Context, f Filter) ([]Measurement, error) {
	if !f.Latest && f.RunID != 0 && f.Label == "" {
		return db.runPoints(ctx, f)
	}
	if !f.Latest {
		w := pointWhere(f, "m")
		if f.RunID != 0 {
			w.add("m.run_id = ?", f.RunID)
		}
		if f.Label != "" {
			w.add("r.label = ?", f.Label)
		}
		from := fromMeasurements
		if f.RunID == 0 && f.Board != "" {
			from = fromBoardRuns
			w.add("b.board = ?", f.Board)
		}
		return db.queryMeasurements(ctx, "read measurements", `SELECT `+measurementCols+from+w.sql()+`
			ORDER BY r.started, r.id, m.id`, w.args...)
	}
	if f.RunID != 0 {
		return nil, fmt.Errorf("read measurements: a run id and latest exclude each other")
	}
	newest, err := db.newestRunPerBoardFast(ctx, f.Board, f.Label)
	if err != nil {
		return nil, fmt.Errorf("read latest measurements in %s: %w", db.Path, err)
	}
	var parts [][]Measurement
	for _, board := range sortedKeys(newest) {
		g := f
		g.Latest, g.Label, g.Board, g.RunID = false, "", board, newest[board]
		ms, err := db.Measurements(ctx, g)
		if err != nil {
			return nil, err
		}
		parts = append(parts, ms)
	}
	return slices.Concat(parts...), nil
}

// LatestPoints returns, for every series (board, mode, algorithm, op, size, key bits, curve, threads) matching
// f, all points of the newest run that measured it, by series. Without f.Label it reads the latest table and
// never scans history; with f.Label it takes, per series, the newest run with that label that measured it
// (walking that label's runs newest first, so a series long unmeasured costs more). f.RunID and f.Latest do
// not apply and must be zero.
func (db *DB) LatestPoints(ctx context.Context, f Filter) ([]Measurement, error) {
	if f.RunID != 0 || f.Latest {
		return nil, fmt.Errorf("read latest points: a run id or latest flag does not apply")
	}
	if f.Label == "" {
		return db.latestPoints(ctx, f)
	}
	// Every series ever measured has a row in latest; for each, walk the measured runs with the label newest
	// first (index runs_label) until one has the series (a seek in measurements_run_series). A reference run is
	// never a series' latest, under a label either.
	w := pointWhere(f, "l")
	args := append([]any{f.Label}, w.args...)
	return db.queryMeasurements(ctx, "read latest points", `WITH s AS (
			SELECT l.board, l.mode, l.algorithm, l.op, l.block_size, l.key_bits, l.curve, l.threads,
				(SELECT r.id FROM runs r WHERE r.label = ?1 AND r.status <> 'reference' AND EXISTS (SELECT 1 FROM measurements m
					WHERE m.run_id = r.id AND `+sameSeries+`) ORDER BY r.started DESC, r.id DESC LIMIT 1) AS run_id
			FROM latest l`+w.sql()+`)
		SELECT `+measurementCols+` FROM s l CROSS JOIN measurements m ON m.run_id = l.run_id AND `+sameSeries+`
			JOIN runs r ON r.id = m.run_id
		ORDER BY l.board, l.mode, l.algorithm, l.op, l.block_size, l.key_bits, l.curve, l.threads, m.id`, args...)
}

// sameSeries matches measurements m to the series of l.
const sameSeries = `m.board = l.board AND m.mode = l.mode AND m.algorithm = l.algorithm AND m.block_size = l.block_size
	AND m.threads = l.threads AND m.op = l.op AND m.key_bits = l.key_bits AND m.curve = l.curve`

// History returns one series over time, oldest run first, with each run's label and start.
// Board, mode and algorithm are required; zero threads, op, key bits and curve match any.
func (db *DB) History(ctx context.Context, k SeriesKey) ([]Measurement, error) {
	if k.Board == "" || k.Mode == "" || k.Algorithm == "" {
		return nil, fmt.Errorf("read history: board, mode and algorithm are required")
	}
	w := seriesWhere(k)
	return db.queryMeasurements(ctx, "read history", `SELECT `+measurementCols+fromBoardRuns+w.sql()+`
		ORDER BY r.started, r.id, m.id`, w.args...)
}

// Sources of measurements with their runs (m, r). The index on measurements starts with the run id, so a query
// for one board walks that board's runs (b) and seeks its points in each: CROSS JOIN fixes that order.
const (
	fromMeasurements = ` FROM measurements m JOIN runs r ON r.id = m.run_id`
	fromBoardRuns    = ` FROM board_runs b CROSS JOIN runs r ON r.id = b.run_id
		CROSS JOIN measurements m ON m.run_id = b.run_id AND m.board = b.board`
)

// where builds an AND of conditions with their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, arg any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, arg)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// pointWhere holds the conditions of f on the point's own columns, of the table named alias.
func pointWhere(f Filter, alias string) where {
	var w where
	if f.Board != "" {
		w.add(alias+".board = ?", f.Board)
	}
	if f.Mode != "" {
		w.add(alias+".mode = ?", f.Mode)
	}
	if f.Algorithm != "" {
		w.add(alias+".algorithm = ?", f.Algorithm)
	}
	if f.SizeSet && f.Size >= 0 {
		w.add(alias+".block_size = ?", f.Size)
	}
	return w
}

// queryMeasurements reads rows of measurementCols, the run's columns with them.
func (db *DB) queryMeasurements(ctx context.Context, op, query string, args ...any) ([]Measurement, error) {
	return db.queryRows(ctx, op, 0, scanMeasurementInto, query, args...)
}

// queryRows reads the rows of query, each into a Measurement by scan (in place: a row is about 500 bytes).
// rowsHint, when not 0, is how many rows are expected: the result is allocated once for them instead of grown
// (and copied) a quarter at a time.
func (db *DB) queryRows(ctx context.Context, op string, rowsHint int, scan func(*sql.Rows, *Measurement) error, query string, args ...any) ([]Measurement, error) {
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", op, db.Path, classify(err))
	}
	defer rows.Close()
	var out []Measurement
	if rowsHint > 0 {
		out = make([]Measurement, 0, rowsHint)
	}
	for rows.Next() {
		out = append(out, Measurement{})
		if err := scan(rows, &out[len(out)-1]); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", op, db.Path, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s in %s: %w", op, db.Path, classify(err))
	}
	return out, nil
}

func scanMeasurement(rows *sql.Rows) (Measurement, error) {
	var m Measurement
	err := scanMeasurementInto(rows, &m)
	return m, err
}

// scanMeasurementInto reads the measurementCols of one row into m.
func scanMeasurementInto(rows *sql.Rows, m *Measurement) error {
	var started sql.NullString
	if err := scanInto(rows, m, &m.RunLabel, &started, &m.RunTool); err != nil {
		return err
	}
	var err error
	m.RunStarted, err = parseTime(started)
	return err
}

// scanPoint reads the pointCols of one row into m, whose run's columns stay as they are.
func scanPoint(rows *sql.Rows, m *Measurement) error {
	return scanInto(rows, m)
}

// scanInto reads a row of m.id, m.run_id, the run's columns given as run (none for pointCols) and a
// measurement's own columns into m.
func scanInto(rows *sql.Rows, m *Measurement, run ...any) error {
	var flags, reasons, evidence sql.NullString
	var energyJ, powerW, ujPerByte sql.NullFloat64
	p := &m.Point
	dest := make([]any, 0, 45)
	dest = append(dest, &m.ID, &m.RunID)
	dest = append(dest, run...)
	dest = append(dest, &m.Board, &p.Mode, &p.Algorithm, &p.Op,
		&p.BlockSize, &p.KeyBits, &p.Curve, &p.Threads, &p.Repeat, &p.Engine, &p.Driver, &p.Count, &p.Seconds,
		&p.Timing, &p.WallEst, &p.BytesPerSec, &p.OpsPerSec, &p.WallS, &p.UserS, &p.SysS, &p.CPUPct,
		&p.SysBusyPct, &p.IRQDelta, &p.Failed, &p.Error, &flags, &p.RawID, &p.Line, &p.Validity,
		&reasons, &evidence, &p.PublishedMin, &p.PublishedMax, &p.Verification, &p.VerificationDetail,
		&p.CPUs, &p.Cluster, &p.PinnedBusyPct, &p.OtherBusyPct,
		&energyJ, &powerW, &p.EnergySamples, &ujPerByte, &p.EnergyUnknown)
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	p.EnergyJ, p.PowerW, p.EnergyUJPerByte = nullFloat(energyJ), nullFloat(powerW), nullFloat(ujPerByte)
	if flags.Valid {
		if err := json.Unmarshal([]byte(flags.String), &p.Flags); err != nil {
			return fmt.Errorf("measurement %d flags: %w", m.ID, err)
		}
	}
	return scanValidity(m.ID, p, reasons, evidence)
}

// compareSeriesPoints orders measurements by their series' key in the latest table, then by id.
func compareSeriesPoints(a, b Measurement) int {
	return cmp.Or(compareSeries(seriesOf(a.Board, &a.Point), seriesOf(b.Board, &b.Point)), cmp.Compare(a.ID, b.ID))
}
