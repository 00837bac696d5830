package fleet

import (
	"context"

	"github.com/fleetlab/fleet/agent"
)

// Board statuses at the end of a run.
const (
	StatusOK          = "ok"
	StatusPartial     = "partial"     // some points stored, then it failed
	StatusFailed      = "failed"      // nothing measured
	StatusInterrupted = "interrupted" // cancelled by the user
)

// Sink receives what a run produces, as it arrives. The store implements it; tests use a slice.
// Calls for one board come from one goroutine; calls for different boards may be concurrent.
type Sink interface {
	BoardStarted(ctx context.Context, board string) error
	BoardFacts(ctx context.Context, board string, facts agent.Facts) error
	Point(ctx context.Context, board string, p agent.Point) error
	Skip(ctx context.Context, board string, s agent.Skip) error
	Raw(ctx context.Context, board string, r agent.Raw) error
	// BoardFinished ends the board's part of the run with a status (StatusOK, ...) and, unless ok, the cause.
	BoardFinished(ctx context.Context, board, status, cause string) error
}
