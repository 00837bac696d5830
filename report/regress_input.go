package report

import "github.com/fleetlab/fleet/store"

// WithInput completes o with what the store read for a regression check besides the points: the boards that
// have no baseline, the baseline runs passed over as invalid and every board's baseline window. Every front end builds its options through it,
// so the CLI and the dashboard judge the same way and print the same notes.
func (o RegressOptions) WithInput(in store.RegressionInput) RegressOptions {
	o.NoBaseline, o.SkippedBaselines, o.Baselines = in.Missing, in.Skipped, BaselineWindows(in.Baselines)
	o.InvalidBaseline = in.Invalid
	return o
}

// RegressInput judges cur against the baseline the store read for it (store.DB.ReadRegressionWindow), with o completed by
// WithInput; it returns the options used too (fleet regress --confirm judges again with them).
func RegressInput(in store.RegressionInput, cur []store.Measurement, o RegressOptions) (*Regression, RegressOptions) {
	o = o.WithInput(in)
	return Regress(in.Base, cur, in.BaseFacts, in.CurFacts, o), o
}
