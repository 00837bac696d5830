package fleet

import (
	"context"

	"github.com/fleetlab/fleet/protocol"
)

// Sink receives what a run produces, as it arrives. The store implements it; tests use a slice.
// Calls for one board come from one goroutine; calls for different boards may be concurrent.
type Sink interface {
	BoardStarted(ctx context.Context, board string) error
	BoardFacts(ctx context.Context, board string, facts protocol.Facts) error
	Point(ctx context.Context, board string, p protocol.Point) error
	Skip(ctx context.Context, board string, s protocol.Skip) error
	Raw(ctx context.Context, board string, r protocol.Raw) error
	// BoardKernel stores the kernel's health over the board's sweep (log lines that matched, drivers, a reboot).
	BoardKernel(ctx context.Context, board string, h protocol.KernelHealth) error
	// BoardFinished ends the board's part of the run with a status (protocol.StatusOK, ...) and, unless ok, the cause.
	BoardFinished(ctx context.Context, board string, status protocol.Status, cause string) error
}
