package serve

import (
	"context"

	"github.com/fleetlab/fleet/store"
)

// Store is what the dashboard reads. It has no method that writes, by design: *store.DB opened with
// store.OpenReadOnly implements it.
type Store interface {
	Runs(ctx context.Context, f store.RunFilter) ([]store.Run, error)
	CountRuns(ctx context.Context, f store.RunFilter) (int, error)
	Run(ctx context.Context, id int64) (store.Run, error)
	ResolveRun(ctx context.Context, ref string) (int64, error)
	BoardRuns(ctx context.Context, runID int64) ([]store.BoardRun, error)
	RawOutputs(ctx context.Context, runID int64, board string) ([]store.RawOutput, error)
	Measurements(ctx context.Context, f store.Filter) ([]store.Measurement, error)
	HistoryPage(ctx context.Context, k store.SeriesKey, offset, limit int) ([]store.Measurement, bool, error)
	SeriesRuns(ctx context.Context, ms []store.Measurement) ([]store.Run, []store.BoardRun, error)
	SelectRun(ctx context.Context, ref string) ([]store.Measurement, error)
	SelectRunFor(ctx context.Context, ref string, f store.Filter) ([]store.Measurement, error)
	ReadRegressionInput(ctx context.Context, ref string, cur []store.Measurement) (store.RegressionInput, error)
	ExpectedPoints(ctx context.Context, run store.Run) (map[string]store.ExpectedCount, error)
	SeriesKeys(ctx context.Context) ([]store.SeriesKey, error)
	Reference(ctx context.Context, label string) (store.Run, []store.Measurement, error)
	ReferenceLabels(ctx context.Context) ([]string, error)
	RawCipherPoints(ctx context.Context, ms []store.Measurement) ([]store.Measurement, error)
	SeriesHistories(ctx context.Context, f store.HistoryFilter) (*store.Histories, error)
	GoneRuns(ctx context.Context, rs []store.Run) (map[int64]string, error)
}

var _ Store = (*store.DB)(nil)
