package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// A label names either measured runs or a reference (a vendor's table imported with fleet import --reference),
// never both: `--run LABEL` and `--baseline LABEL` would otherwise pick whichever run is newer, a vendor's
// figures judged as a measurement or a measurement shown as the vendor's. ImportReference refuses a label of
// measured runs (ErrLabelMeasured); BeginRun and BeginImport refuse a reference's (ErrLabelReference); and
// ResolveRun refuses a label that has both anyway (ErrLabelMixed: a database written before the guard, or
// filled by db copy from two databases).

// ErrLabelReference means a measured run was to be stored under a reference's label.
var ErrLabelReference = errors.New("label names a reference")

// ErrLabelMixed means a label names both measured runs and a reference, so it selects no run with certainty.
var ErrLabelMixed = errors.New("label names both measured runs and a reference")

// checkMeasuredLabel refuses label for a measured run when a reference has it.
func (db *DB) checkMeasuredLabel(ctx context.Context, label string) error {
	if label == "" {
		return nil
	}
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE label = ? AND status = ?`, label,
		protocol.StatusReference).Scan(&n); err != nil {
		return fmt.Errorf("check label %q in %s: %w", label, db.Path, classify(err))
	}
	if n > 0 {
		return fmt.Errorf("%w: %q is the reference imported with fleet import --reference %s, a vendor's table; "+
			"give the measured run another label, such as %s-measured", ErrLabelReference, label, label, label)
	}
	return nil
}

// labelKinds counts the measured and the reference runs labelled label.
func (db *DB) labelKinds(ctx context.Context, label string) (measured, reference int, err error) {
	err = db.db.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(CASE WHEN status <> ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = ? THEN 1 ELSE 0 END), 0)
		FROM runs WHERE label = ?`, protocol.StatusReference, protocol.StatusReference, label).Scan(&measured, &reference)
	if err != nil {
		return 0, 0, fmt.Errorf("resolve run labelled %q in %s: %w", label, db.Path, classify(err))
	}
	return measured, reference, nil
}
