package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// A RunRecord is a run's record in the store (a store.RunWriter): it receives what the run produces, holds the
// run's leases on its boards, and ends with the run's status.
type RunRecord interface {
	Sink
	Leaser
	RunID() int64
	// Finish ends the run with status and gives back the leases it still holds.
	Finish(ctx context.Context, status protocol.Status) error
	// DropBoards removes, after Finish, boards' parts of the run that refused them before measuring (an
	// algorithm their openssl lacks: a usage error, not a result), and the run itself when no board is left;
	// dropped says whether the run went too. It is the record's so that every backend does it, not only the
	// one a caller could type-assert.
	DropBoards(ctx context.Context, boards []string) (dropped bool, err error)
}

// RecordOptions is a run kept in a record from its beginning to its end, as fleet run and regress --confirm
// make one.
type RecordOptions struct {
	// RunOptions is what to measure and how. Its Leases are the record's; a nil Agent takes AgentPath's agents.
	RunOptions
	// Begin opens the run's record: store.DB.BeginRun with the run's label, host and command line.
	Begin func(ctx context.Context) (RunRecord, error)
	// AgentPath is the agent binary for every board (--agent); "" builds one per arch from the embedded source.
	AgentPath string
	// Final makes the context of the run's end once every board has stopped: not cancelled with the run's
	// (store.Outlive bounds it to a grace period after an interrupt). It is made then and not at the start, so
	// that the grace bounds the database's answer to the final writes rather than the boards' stopping: a push
	// cut over a slow link took longer than the 5 s grace on a busy machine, and a healthy database's run was
	// left "running". nil is context.WithoutCancel of the run's.
	Final func() (context.Context, context.CancelFunc)
}

// RecordedRun is how a recorded run ended.
type RecordedRun struct {
	ID       int64     // the record's run id
	Record   RunRecord // the record itself, finished
	Outcomes []BoardOutcome
	Status   protocol.Status // as stored
	Err      error           // Run's: ctx's error when interrupted, ErrBoardsFailed, or nil
}

// RunRecorded is a run's whole life in the store: begin the record, measure opts.Boards into it with each
// board leased through it, and finish it with the run's status. A cancelled ctx makes the run interrupted,
// and the status is stored even then. The error is the record's (it could not be begun or finished); how the
// measuring went is in the result. Progress is not waited for: the caller's printer drains its own.
func RunRecorded(ctx context.Context, opts RecordOptions) (RecordedRun, error) {
	endPhase := opts.Trace.Phase("run", "begin the run")
	rec, err := opts.Begin(ctx)
	endPhase()
	if err != nil {
		return RecordedRun{}, err
	}
	ro := opts.RunOptions
	ro.Leases = rec
	if ro.Agent == nil {
		ro.Agent = (&Agents{Path: opts.AgentPath, Logf: ro.Logf}).For
	}
	endPhase = opts.Trace.Phase("run", "measure every board")
	outcomes, runErr := Run(ctx, ro, rec)
	endPhase()
	res := RecordedRun{ID: rec.RunID(), Record: rec, Outcomes: outcomes, Status: RunStatus(outcomes, runErr), Err: runErr}
	if ctx.Err() != nil {
		res.Status = protocol.StatusInterrupted // whatever ended the context, not only a cancel
	}
	defer opts.Trace.Phase("run", "finish the run")()
	// The run's end must not depend on the cancelled context.
	final := context.WithoutCancel(ctx)
	if opts.Final != nil {
		var end context.CancelFunc
		final, end = opts.Final()
		defer end()
	}
	return res, rec.Finish(final, res.Status)
}

// DropRefused takes out of the run, after its end, the boards refused before measuring for an algorithm their
// openssl lacks (ErrUnknownAlgorithm), and the run itself when every board was refused: a misspelt
// --algorithms is a usage error, not a failed run in the history. It is here, not in a front end, so that every
// caller of RunRecorded keeps the history the same way. refused says which boards and why (nil when none was
// refused; the record's error when dropping failed), kept are the outcomes that stay, and gone says whether
// the run went too.
func (r RecordedRun) DropRefused(ctx context.Context) (kept []BoardOutcome, gone bool, refused error) {
	var boards, why []string
	for _, o := range r.Outcomes {
		if errors.Is(o.Err, ErrUnknownAlgorithm) {
			boards, why = append(boards, o.Board), append(why, o.Err.Error())
			continue
		}
		kept = append(kept, o)
	}
	if len(boards) == 0 {
		return r.Outcomes, false, nil
	}
	gone, err := r.Record.DropBoards(ctx, boards)
	if err != nil {
		return kept, false, err
	}
	return kept, gone, fmt.Errorf("%s (nothing measured or stored for %s)", strings.Join(why, "; "), strings.Join(boards, ", "))
}
