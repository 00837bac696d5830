package main

import (
	"context"
	"errors"
	"strings"

	"github.com/fleetlab/fleet/fleet"
)

// dropRefused takes out of the run, after its end, the boards refused before measuring for an algorithm their
// openssl lacks, and the run itself when every board was refused: a misspelt --algorithms is a usage error,
// not a failed run in the history. refused is that usage error (nil when none was refused), outcomes the boards
// that stay, and gone whether the run went too.
func dropRefused(ctx context.Context, w fleet.RunRecord, outcomes []fleet.BoardOutcome) (kept []fleet.BoardOutcome, gone bool, refused error) {
	var boards, why []string
	for _, o := range outcomes {
		if errors.Is(o.Err, fleet.ErrUnknownAlgorithm) {
			boards, why = append(boards, o.Board), append(why, o.Err.Error())
			continue
		}
		kept = append(kept, o)
	}
	if len(boards) == 0 {
		return outcomes, false, nil
	}
	gone, err := w.DropBoards(ctx, boards)
	if err != nil {
		return kept, false, usageErr("%w", err)
	}
	return kept, gone, usageErr("%s (nothing measured or stored for %s)", strings.Join(why, "; "), strings.Join(boards, ", "))
}
