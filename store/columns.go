package store

import (
	"database/sql"
	"strings"
)

// measurementColumn is one column a stored point fills and how its value is read from the point.
type measurementColumn struct {
	name  string
	value func(w *RunWriter, bp *boardPoint) any
}

// measurementColumns are the columns of measurements a point fills, in one list that both the multi-row INSERT
// and PostgreSQL's COPY are built from: a new column is added here, once, with its value. id is left to the
// database.
var measurementColumns = []measurementColumn{
	{"run_id", func(w *RunWriter, _ *boardPoint) any { return w.id }},
	{"board", func(_ *RunWriter, bp *boardPoint) any { return bp.board }},
	{"mode", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Mode }},
	{"algorithm", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Algorithm }},
	{"op", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Op }},
	{"block_size", func(_ *RunWriter, bp *boardPoint) any { return bp.p.BlockSize }},
	{"key_bits", func(_ *RunWriter, bp *boardPoint) any { return bp.p.KeyBits }},
	{"curve", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Curve }},
	{"threads", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Threads }},
	{"repeat", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Repeat }},
	{"engine", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Engine }},
	{"driver", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Driver }},
	{"count", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Count }},
	{"seconds", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Seconds }},
	{"timing", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Timing }},
	{"wall_est_s", func(_ *RunWriter, bp *boardPoint) any { return bp.p.WallEst }},
	{"bytes_per_sec", func(_ *RunWriter, bp *boardPoint) any { return bp.p.BytesPerSec }},
	{"ops_per_sec", func(_ *RunWriter, bp *boardPoint) any { return bp.p.OpsPerSec }},
	{"wall_s", func(_ *RunWriter, bp *boardPoint) any { return bp.p.WallS }},
	{"user_s", func(_ *RunWriter, bp *boardPoint) any { return bp.p.UserS }},
	{"sys_s", func(_ *RunWriter, bp *boardPoint) any { return bp.p.SysS }},
	{"cpu_pct", func(_ *RunWriter, bp *boardPoint) any { return bp.p.CPUPct }},
	{"sys_busy_pct", func(_ *RunWriter, bp *boardPoint) any { return bp.p.SysBusyPct }},
	{"irq_delta", func(_ *RunWriter, bp *boardPoint) any { return bp.p.IRQDelta }},
	{"failed", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Failed }},
	{"error", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Error }},
	{"flags", func(_ *RunWriter, bp *boardPoint) any { return jsonList(bp.p.Flags) }},
	{"raw_id", func(_ *RunWriter, bp *boardPoint) any { return bp.p.RawID }},
	{"line", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Line }},
	{"validity", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Validity }},
	{"validity_reasons", func(_ *RunWriter, bp *boardPoint) any { return jsonList(bp.p.ValidityReasons) }},
	{"evidence", func(_ *RunWriter, bp *boardPoint) any { return evidenceJSON(bp.p.Evidence) }},
	{"published_min", func(_ *RunWriter, bp *boardPoint) any { return bp.p.PublishedMin }},
	{"published_max", func(_ *RunWriter, bp *boardPoint) any { return bp.p.PublishedMax }},
	{"verification", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Verification }},
	{"verification_detail", func(_ *RunWriter, bp *boardPoint) any { return bp.p.VerificationDetail }},
	{"cpus", func(_ *RunWriter, bp *boardPoint) any { return bp.p.CPUs }},
	{"cluster", func(_ *RunWriter, bp *boardPoint) any { return bp.p.Cluster }},
	{"pinned_busy_pct", func(_ *RunWriter, bp *boardPoint) any { return bp.p.PinnedBusyPct }},
	{"other_busy_pct", func(_ *RunWriter, bp *boardPoint) any { return bp.p.OtherBusyPct }},
	// energy (migration 0013): NULL, never 0, where the board's sensor or meter could not say
	{"energy_j", func(_ *RunWriter, bp *boardPoint) any { return floatOrNull(bp.p.EnergyJ) }},
	{"power_w", func(_ *RunWriter, bp *boardPoint) any { return floatOrNull(bp.p.PowerW) }},
	{"energy_samples", func(_ *RunWriter, bp *boardPoint) any { return bp.p.EnergySamples }},
	{"energy_uj_per_byte", func(_ *RunWriter, bp *boardPoint) any { return floatOrNull(bp.p.EnergyUJPerByte) }},
	{"energy_unknown", func(_ *RunWriter, bp *boardPoint) any { return bp.p.EnergyUnknown }},
}

// floatOrNull is a nullable figure's column value.
func floatOrNull(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// nullFloat is a nullable figure read back.
func nullFloat(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	return &v.Float64
}

// measurementColumnNames are the names of measurementColumns, in order.
var measurementColumnNames = func() []string {
	names := make([]string, len(measurementColumns))
	for i, c := range measurementColumns {
		names[i] = c.name
	}
	return names
}()

// appendMeasurementValues appends the values of bp's row, in the order of measurementColumns.
func appendMeasurementValues(dst []any, w *RunWriter, bp *boardPoint) []any {
	for _, c := range measurementColumns {
		dst = append(dst, c.value(w, bp))
	}
	return dst
}

// insertMeasurementsHead and measurementRow make the multi-row INSERT of n points (insertMeasurements).
var (
	insertMeasurementsHead = "INSERT INTO measurements (" + strings.Join(measurementColumnNames, ", ") + ") VALUES "
	measurementRow         = "(" + strings.TrimSuffix(strings.Repeat("?, ", len(measurementColumns)), ", ") + ")"
)

func insertMeasurements(n int) string {
	return multiRowSQL(insertMeasurementsHead, measurementRow, "", n)
}
