package fleet

import (
	"context"
	"sync"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// ValidityRecorder is implemented by a sink that stores the verdict on a board run (the store does). The
// verdict arrives just before BoardFinished; a sink without the method gets verdicts on points only.
type ValidityRecorder interface {
	BoardValidity(ctx context.Context, board, verdict string, reasons []string) error
}

// judgingSink gives every point its validity verdict before the inner sink sees it, and each board run its
// verdict when the board finishes.
type judgingSink struct {
	Sink
	limits map[string]validity.Overrides // board → the limits boards.toml sets for it under the profile
	logf   func(format string, args ...any)

	mu      sync.Mutex
	tallies map[string]*validity.Tally
	warned  map[string]bool // boards whose limits warning was said (facts come again after a reconnect)
}

var _ Sink = (*judgingSink)(nil)

// withValidity wraps sink so that points and board runs are judged with the limits of each board and profile.
func withValidity(sink Sink, boards []inventory.Board, profile inventory.Profile, logf func(string, ...any)) *judgingSink {
	j := &judgingSink{Sink: sink, limits: map[string]validity.Overrides{}, tallies: map[string]*validity.Tally{}, logf: logf}
	for _, b := range boards {
		j.limits[b.Name] = inventory.ValidityFor(b, profile)
	}
	return j
}

// BoardFacts says, once the board's cores are known, when the average limit it is judged with is above the peak
// limit (boards.toml set the average, and the default peak for these cores, 16 %/cores, is lower): a point is
// then invalid before it can be suspect, which is not what the setting asked for. The limits are applied as set.
func (j *judgingSink) BoardFacts(ctx context.Context, board string, f protocol.Facts) error {
	if w := validity.LimitsWarning(f.CPU.Cores, j.limits[board]); w != "" && j.logf != nil {
		j.mu.Lock()
		said := j.warned[board]
		if j.warned == nil {
			j.warned = map[string]bool{}
		}
		j.warned[board] = true
		j.mu.Unlock()
		if !said {
			j.logf("%s: %s", board, w)
		}
	}
	return j.Sink.BoardFacts(ctx, board, f)
}

func (j *judgingSink) Point(ctx context.Context, board string, p protocol.Point) error {
	v := validity.Judge(p, j.limits[board])
	p.Validity, p.ValidityReasons = v.Validity, v.Reasons
	j.mu.Lock()
	t := j.tallies[board]
	if t == nil {
		t = new(validity.Tally)
		j.tallies[board] = t
	}
	t.Add(p)
	j.mu.Unlock()
	return j.Sink.Point(ctx, board, p)
}

func (j *judgingSink) BoardFinished(ctx context.Context, board string, status protocol.Status, cause string) error {
	j.mu.Lock()
	t := j.tallies[board]
	delete(j.tallies, board)
	j.mu.Unlock()
	if rec, ok := j.Sink.(ValidityRecorder); ok && t != nil {
		if v := t.Verdict(j.limits[board]); v.Validity != "" {
			if err := rec.BoardValidity(ctx, board, v.Validity, v.Reasons); err != nil {
				return err
			}
		}
	}
	return j.Sink.BoardFinished(ctx, board, status, cause)
}

// preparePlan adds how the agent prepares the board before its sweep: the command line's quiet wait and
// governor, else the board's and profile's, and the background limit the quiet wait aims at.
func preparePlan(p *protocol.Plan, opts RunOptions, b inventory.Board) {
	pr := inventory.PrepareFor(b, opts.Sweep)
	if opts.QuietWait != nil {
		pr.QuietWait = opts.QuietWait
	}
	if opts.Governor != "" {
		pr.Governor = opts.Governor
	}
	if pr.QuietWait != nil {
		p.QuietWaitS = pr.QuietWait.Seconds()
	}
	p.Governor = pr.Governor
	o := inventory.ValidityFor(b, opts.Sweep)
	if o.BackgroundPeakPct != nil {
		p.QuietLimitPct = *o.BackgroundPeakPct
	}
	adaptivePlan(p, opts.Sweep, o)
}
